// The Redis and Valkey versions the fake server models, and what each has.
import { formatDouble17g, formatDoubleShortest, type DoubleFormatter } from './resp.js';

/** The Redis versions the fake can model. */
export type RedisVersion = '6.2' | '7.0' | '7.2' | '8.2' | '8.4' | '8.6' | '8.8';

/** Which server the fake pretends to be. */
export type ServerFlavour = 'redis' | 'valkey';

/** Full version strings reported for each model (INFO, HELLO, Lua). */
const FULL_VERSIONS: Record<RedisVersion, string> = {
  '6.2': '6.2.14',
  '7.0': '7.0.15',
  '7.2': '7.2.6',
  '8.2': '8.2.2',
  '8.4': '8.4.0',
  '8.6': '8.6.3',
  '8.8': '8.8.0',
};

/** The version Valkey reports (INFO `valkey_version`, Lua `VALKEY_VERSION`). */
export const VALKEY_VERSION = '9.1.2';
/** The version Valkey pins in INFO `redis_version` and Lua `REDIS_VERSION`. */
const VALKEY_COMPAT_REDIS_VERSION = '7.2.4';

/**
 * Everything that differs between modelled servers, as flags the commands consult.
 * Derived once from the server options; see REDIS-STREAMS.md for the facts behind each flag.
 */
export interface ServerModel {
  readonly flavour: ServerFlavour;
  /** `7.0.15`, or Valkey's own version. */
  readonly version: string;
  /** `redis_version` in INFO and `redis.REDIS_VERSION` in Lua (7.2.4 on Valkey). */
  readonly redisVersion: string;
  /** 0x00MMmmpp of {@link redisVersion}. */
  readonly redisVersionNum: number;
  /** 7.0+: `redis.REDIS_VERSION(_NUM)`, `redis.acl_check_cmd`, function flags, error formats. */
  readonly redis7: boolean;
  /** 7.0+: XAUTOCLAIM's third element lists deleted IDs (purged from the PEL); XCLAIM drops them too. */
  readonly autoClaimDeletes: boolean;
  /** 7.0+: XINFO GROUPS `entries-read` and `lag`; XINFO STREAM `max-deleted-entry-id` etc. */
  readonly streamLag: boolean;
  /** 7.2+: XREADGROUP registers the consumer even when the read is empty; XINFO CONSUMERS `inactive`. */
  readonly consumersOnEmptyReads: boolean;
  /** 7.2+: XINFO CONSUMERS `inactive`. */
  readonly consumerInactive: boolean;
  /** 7.2+ and Valkey: CLIENT SETINFO. */
  readonly clientSetInfo: boolean;
  /** 7.2+ and Valkey: shortest double formatting (else `%.17g`). */
  readonly formatDouble: DoubleFormatter;
  /** 7.2+: `NOPERM User <name> has no permissions to run the '<cmd>' command`. */
  readonly aclMessages72: boolean;
  /**
   * 7.4+ Redis: XREAD takes `+` (its unbalanced-streams error names it); XREAD and XREADGROUP with
   * BLOCK run in a script without blocking instead of being refused; XREADGROUP keeps counting a
   * group's entries-read only from a position at or after the first entry with no tombstone after
   * it, and otherwise estimates it again (so reading past an XDEL gap ends at entries-added).
   */
  readonly streams74: boolean;
  /** 8.2+ Redis: XACKDEL, XDELEX, KEEPREF/DELREF/ACKED. */
  readonly xackdel: boolean;
  /** 8.4+ Redis: XREADGROUP ... CLAIM min-idle-ms. */
  readonly readGroupClaim: boolean;
  /** 8.6+ Redis: XADD IDMP/IDMPAUTO, XCFGSET; XINFO STREAM's `idmp-*`, `pids-tracked` and `iids-*` fields. */
  readonly idempotentAdd: boolean;
  /** 8.6.2+ Redis: `redis.acl_check_cmd` raises on a wrong argument count. */
  readonly aclCheckArity: boolean;
  /** 8.8 Redis: XNACK. */
  readonly xnack: boolean;
}

function versionNum(version: string): number {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  return (major << 16) | (minor << 8) | patch;
}

/** Builds the model for a Redis version or for Valkey. */
export function serverModel(flavour: ServerFlavour, version: RedisVersion): ServerModel {
  if (flavour === 'valkey') {
    return {
      flavour,
      version: VALKEY_VERSION,
      redisVersion: VALKEY_COMPAT_REDIS_VERSION,
      redisVersionNum: versionNum(VALKEY_COMPAT_REDIS_VERSION),
      redis7: true,
      autoClaimDeletes: true,
      streamLag: true,
      consumersOnEmptyReads: true,
      consumerInactive: true,
      clientSetInfo: true,
      formatDouble: formatDoubleShortest,
      aclMessages72: true,
      streams74: false,
      xackdel: false,
      readGroupClaim: false,
      idempotentAdd: false,
      aclCheckArity: false,
      xnack: false,
    };
  }
  const full = FULL_VERSIONS[version];
  if (!full) throw new RangeError(`unknown Redis version model '${String(version)}'; use one of ${Object.keys(FULL_VERSIONS).join(', ')}`);
  const num = versionNum(full);
  return {
    flavour,
    version: full,
    redisVersion: full,
    redisVersionNum: num,
    redis7: num >= 0x070000,
    autoClaimDeletes: num >= 0x070000,
    streamLag: num >= 0x070000,
    consumersOnEmptyReads: num >= 0x070200,
    consumerInactive: num >= 0x070200,
    clientSetInfo: num >= 0x070200,
    formatDouble: num >= 0x070200 ? formatDoubleShortest : formatDouble17g,
    aclMessages72: num >= 0x070200,
    streams74: num >= 0x070400,
    xackdel: num >= 0x080200,
    readGroupClaim: num >= 0x080400,
    idempotentAdd: num >= 0x080600,
    aclCheckArity: num >= 0x080602,
    xnack: num >= 0x080800,
  };
}

export const REDIS_VERSIONS: readonly RedisVersion[] = Object.keys(FULL_VERSIONS) as RedisVersion[];
