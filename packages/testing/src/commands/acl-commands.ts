// ACL commands of the fake server (ACL SETUSER, WHOAMI, ...).
import { AclUser } from '../acl.js';
import { CommandError, OK, type Reply } from '../reply.js';
import { command, container, type CommandSpec } from './types.js';

const admin = (name: string, arity: number, handler: CommandSpec['handler']): CommandSpec =>
  command({ name, arity, flags: ['admin'], categories: ['admin', 'slow', 'dangerous'], handler });

export const aclCommands: CommandSpec[] = [
  container(
    'acl',
    -2,
    {
      whoami: command({ name: 'acl|whoami', arity: 2, categories: ['slow'], handler: (ctx) => ctx.client.user.name }),
      users: admin('acl|users', 2, (ctx) => [...ctx.engine.acl.users.keys()]),
      list: admin('acl|list', 2, (ctx) => [...ctx.engine.acl.users.values()].map((u) => u.describe())),
      setuser: admin('acl|setuser', -3, (ctx) => {
        const name = ctx.args[2]!;
        const existing = ctx.engine.acl.users.get(name);
        const user = existing ?? new AclUser(name);
        const draft = new AclUser(name);
        Object.assign(draft, { enabled: user.enabled, nopass: user.nopass, commandRules: [...user.commandRules], keyRules: [...user.keyRules] });
        for (const p of user.passwords) draft.passwords.add(p);
        draft.apply(ctx.args.slice(3));
        ctx.engine.acl.users.set(name, draft);
        for (const client of ctx.engine.clients.values()) if (client.user === existing) client.user = draft;
        return OK;
      }),
      deluser: admin('acl|deluser', -3, (ctx): Reply => {
        let n = 0;
        for (const name of ctx.args.slice(2)) {
          if (name === 'default') throw new CommandError("ERR The 'default' user cannot be removed");
          const user = ctx.engine.acl.users.get(name);
          if (!user) continue;
          ctx.engine.acl.users.delete(name);
          for (const client of [...ctx.engine.clients.values()]) if (client.user === user) client.close();
          n++;
        }
        return n;
      }),
    },
    ['slow'],
  ),
];
