--[[ include: leased-mark - the grouped leased hash's one field that is not an entry ID
A grouped queue's leased hash (entry ID -> group ID; leases-grouped.lua) gets this field with every
take. Its value is longer than hash-max-listpack-value (64 bytes by default), so the server keeps
the hash as a hashtable from its first write; a listpack (any hash of up to 128 short fields) is
scanned once per field set, read or removed, about 3% of a grouped message's server work in
batches of 100. Settling deletes the hash when the mark is all that is left, so an idle queue
keeps no leased hash, and every reader of the hash skips the mark (the TypeScript side names it
GROUPED_LEASED_MARK in src/keys.ts).

  RESPIRE_LEASED_MARK, RESPIRE_LEASED_MARK_VALUE   the field and its value
]]
local RESPIRE_LEASED_MARK, RESPIRE_LEASED_MARK_VALUE = 'respire:hashtable',
  'a value over 64 bytes keeps this hash a hashtable: no scan per field set or removed'
