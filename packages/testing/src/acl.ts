// The fake server's ACL users: command, category and key-pattern rules, checked as Redis checks them.
import { globMatch } from './keyspace.js';
import { CommandError } from './reply.js';
import type { ServerModel } from './versions.js';

/** The key permissions a command needs (Redis's key-spec ACCESS for read; INSERT, DELETE, UPDATE for write). */
export interface KeyAccess {
  readonly read: boolean;
  readonly write: boolean;
}

/** What an ACL check reads of a command (the engine's CommandSpec has it all). */
interface AclCommand {
  readonly name: string;
  readonly flags: readonly string[];
  readonly categories: readonly string[];
  keys(args: readonly string[]): number[];
  readonly keyAccess?: KeyAccess;
}

/** An ACL user given in the server options. */
export interface FakeUserOptions {
  /** User name. */
  name: string;
  /** Password; omit for a user that accepts any password (`nopass`). */
  password?: string;
  /**
   * ACL SETUSER rules for commands and keys, e.g. `['~queue:*', '+@all', '-xdel']`.
   * Supported: `on`/`off`, `>pw`, `nopass`, `~pattern`, `%R~`/`%W~`/`%RW~pattern`, `allkeys`,
   * `resetkeys`, `+cmd`, `-cmd`, `+cmd|sub`, `+@category`, `-@category`, `allcommands`,
   * `nocommands`, `reset`; channel rules are accepted and ignored.
   * @defaultValue `[]` (no commands, no keys)
   */
  rules?: readonly string[];
}

interface CommandRule {
  readonly allow: boolean;
  readonly all?: true;
  readonly category?: string;
  readonly command?: string;
}

interface KeyRule {
  readonly pattern: string;
  readonly read: boolean;
  readonly write: boolean;
}

/** A user and its permissions. */
export class AclUser {
  enabled = false;
  nopass = false;
  readonly passwords = new Set<string>();
  commandRules: CommandRule[] = [];
  keyRules: KeyRule[] = [];

  constructor(readonly name: string) {}

  /** Applies ACL SETUSER rules. @throws CommandError on an unknown rule. */
  apply(rules: readonly string[]): void {
    for (const rule of rules) this.applyOne(rule);
  }

  private applyOne(rule: string): void {
    const lower = rule.toLowerCase();
    if (lower === 'on') this.enabled = true;
    else if (lower === 'off') this.enabled = false;
    else if (lower === 'nopass') {
      this.nopass = true;
      this.passwords.clear();
    } else if (lower === 'resetpass') {
      this.nopass = false;
      this.passwords.clear();
    } else if (rule.startsWith('>')) {
      this.passwords.add(rule.slice(1));
      this.nopass = false;
    } else if (rule.startsWith('<')) this.passwords.delete(rule.slice(1));
    else if (lower === 'allkeys') this.keyRules.push({ pattern: '*', read: true, write: true });
    else if (lower === 'resetkeys') this.keyRules = [];
    else if (rule.startsWith('~')) this.keyRules.push({ pattern: rule.slice(1), read: true, write: true });
    else if (/^%(R|W|RW|WR)~/i.test(rule)) {
      const [perm, pattern] = [rule.slice(1, rule.indexOf('~')).toUpperCase(), rule.slice(rule.indexOf('~') + 1)];
      this.keyRules.push({ pattern, read: perm.includes('R'), write: perm.includes('W') });
    } else if (lower === 'allcommands' || lower === '+@all') this.commandRules.push({ allow: true, all: true });
    else if (lower === 'nocommands' || lower === '-@all') this.commandRules.push({ allow: false, all: true });
    else if (/^[+-]@/.test(rule)) this.commandRules.push({ allow: rule[0] === '+', category: lower.slice(2) });
    else if (/^[+-][a-z_|-]+$/i.test(rule)) this.commandRules.push({ allow: rule[0] === '+', command: lower.slice(1) });
    else if (lower === 'reset') {
      this.enabled = false;
      this.nopass = false;
      this.passwords.clear();
      this.commandRules = [];
      this.keyRules = [];
    } else if (
      rule.startsWith('&') ||
      lower === 'allchannels' ||
      lower === 'resetchannels' ||
      lower === 'sanitize-payload' ||
      lower === 'skip-sanitize-payload'
    ) {
      // Pub/Sub channels are not modelled.
    } else throw new CommandError(`ERR Error in ACL SETUSER modifier '${rule}': Syntax error`);
  }

  /** Whether this user may run the command (ignoring keys). */
  mayRun(spec: AclCommand, parent: AclCommand | undefined): boolean {
    let allowed = false;
    for (const rule of this.commandRules) {
      if (
        rule.all ||
        (rule.category !== undefined && (spec.categories.includes(rule.category) || (parent?.categories.includes(rule.category) ?? false))) ||
        (rule.command !== undefined && (rule.command === spec.name || rule.command === parent?.name))
      ) {
        allowed = rule.allow;
      }
    }
    return allowed;
  }

  /** Whether this user may access `key` for reading and/or writing. */
  mayAccess(key: string, read: boolean, write: boolean): boolean {
    // `*` (allkeys, the default user) matches every key: skip the regex on the hot path.
    return this.keyRules.some((r) => (!read || r.read) && (!write || r.write) && (r.pattern === '*' || globMatch(r.pattern, key)));
  }

  /** Whether `password` authenticates this user. */
  accepts(password: string): boolean {
    return this.enabled && (this.nopass || this.passwords.has(password));
  }

  /** ACL LIST style description. */
  describe(): string {
    const parts = [`user ${this.name}`, this.enabled ? 'on' : 'off'];
    if (this.nopass) parts.push('nopass');
    for (const p of this.passwords) parts.push(`#${p.length}`);
    for (const k of this.keyRules) parts.push(`${k.read && k.write ? '' : k.read ? '%R' : '%W'}~${k.pattern}`);
    for (const c of this.commandRules) parts.push(`${c.allow ? '+' : '-'}${c.all ? '@all' : c.category !== undefined ? `@${c.category}` : c.command}`);
    return parts.join(' ');
  }
}

/** The user table and permission checks. */
export class Acl {
  readonly users = new Map<string, AclUser>();

  constructor(defaultPassword: string | undefined, users: readonly FakeUserOptions[]) {
    const root = new AclUser('default');
    root.apply(['on', defaultPassword === undefined ? 'nopass' : `>${defaultPassword}`, '~*', '&*', '+@all']);
    this.users.set('default', root);
    for (const options of users) {
      const user = new AclUser(options.name);
      user.apply(['on', options.password === undefined ? 'nopass' : `>${options.password}`, ...(options.rules ?? [])]);
      this.users.set(options.name, user);
    }
  }

  get defaultUser(): AclUser {
    return this.users.get('default')!;
  }

  /** The user for AUTH/HELLO, or undefined when the pair is wrong. */
  authenticate(name: string, password: string): AclUser | undefined {
    const user = this.users.get(name);
    return user?.accepts(password) ? user : undefined;
  }

  /** Why `user` may not run `args`, or undefined when allowed. */
  denial(user: AclUser, spec: AclCommand, args: readonly string[], model: ServerModel, parent?: AclCommand): string | undefined {
    const parentSpec = parent ?? (spec.name.includes('|') ? this.parentOf?.(spec) : undefined);
    if (!user.mayRun(spec, parentSpec)) {
      if (!model.redis7) return `NOPERM this user has no permissions to run the '${spec.name}' command or its subcommand`;
      return model.aclMessages72
        ? `NOPERM User ${user.name} has no permissions to run the '${spec.name}' command`
        : `NOPERM this user has no permissions to run the '${spec.name}' command`;
    }
    const write = spec.keyAccess?.write ?? spec.flags.includes('write');
    const read = spec.keyAccess?.read ?? !write;
    for (const index of spec.keys(args)) {
      const key = args[index];
      if (key !== undefined && !user.mayAccess(key, read, write)) {
        return model.aclMessages72
          ? 'NOPERM No permissions to access a key'
          : 'NOPERM this user has no permissions to access one of the keys used as arguments';
      }
    }
    return undefined;
  }

  /** Set by the server: finds the container command of a subcommand. @internal */
  parentOf: ((spec: AclCommand) => AclCommand | undefined) | undefined;
}
