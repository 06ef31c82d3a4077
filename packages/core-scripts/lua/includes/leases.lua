--[[ include: leases - the lease engine: the deadlines index, fencing, and what a source provides
The lease engine: leases, receipts that fence every completion, the delivery limit, dead letters
and bounded recovery, the same for every source of messages. A source says where new messages
come from and what completing one does to it: a reliable queue's private consumer group on its own
stream (leases-queue.lua), and in time a topic subscription's group on a shared stream or a grouped
queue's ring of group heads. Everything else is here.

The deadlines index (a sorted set) holds one member per delivered message, in the format of
receipts.lua, scored with the lease's deadline or the revoked message's due time (whole ms, server
clock). A new message not yet due (a delayed send) is parked there by the receive that takes it, as
a revoked one with delivery count 0, scored with its due time: recovery then delivers it (count 1). A lease is valid while now < deadline (now with microseconds); at the deadline itself the
message is due. Deadlines round up, so a lease is never shorter than asked.

A script includes one source (leases-<source>.lua), then an operation (below). The source is chosen
when the script is built, not looked up at run time: it defines these functions, which the engine
calls with the source's keys (a table the source makes):
  respire_source_check(source)            checks the source's key types, before anything else
  respire_source_body(source, id)         -> the field list of message `id`, or nil when it is gone
  respire_source_allow_take(source)       checks the permissions that taking new messages needs
  respire_source_take(source, count)      -> up to `count` new messages { { id, fields }, ... }, and
                                             true when fewer came although the source may have more;
                                             may be the first write
  respire_source_due(fields)              -> when a new message may first be delivered (ms, server
                                             clock), or nil: at once
  respire_source_headers(fields)          -> a message's headers, bytes the engine hands on ('' for none)
  respire_source_plan_settle(source, ids) checks the permissions that settling `ids` needs (and, for
                                             a source whose settle reads keys the take may have
                                             written first, their types); -> a plan
  respire_source_settle(source, ids, plan)
                                          completes messages that leave the engine (acknowledged,
                                          dead-lettered, or whose body is gone); may be the first write

  respire_leases_held(deadlines, first, now)
      -> ids, valid, members, reply: ARGV[first..] read as entry ID, receipt pairs; `valid` lists
         the positions i whose receipt still holds the lease on ids[i] (a repeated ID counts once:
         its later positions are already completed); `reply` has a 0 per pair

The operations are included as the rest of a script, not called (Redis runs a script's whole body
on every call, and a function that names many helpers costs about 1 microsecond per call to create):
  leases-receive.lua   recover due messages, dead-letter exhausted ones, lease new ones
  leases-complete.lua  complete deliveries whose receipts hold their leases (ack)
  leases-release.lua   revoke leases, the messages due after a delay (nack)
  leases-extend.lua    give held leases a new deadline, keeping their receipts (extend)
Each names the locals it reads from the script and returns the script's reply.
]]
--@include server
--@include acl
--@include types
--@include receipts

local function respire_leases_held(deadlines, first, now)
  local ids, members, reply = {}, {}, {}
  for i = first, #ARGV, 2 do
    ids[#ids + 1] = ARGV[i]
    members[#members + 1] = respire_member(ARGV[i], ARGV[i + 1])
    reply[#reply + 1] = 0
  end
  local scores = respire_typed_call(deadlines, 'zset', 'ZMSCORE', deadlines, unpack(members))
  local valid, seen = {}, {}
  for i = 1, #ids do
    local id, score = ids[i], scores[i]
    if score and tonumber(score) > now and not seen[id] then
      seen[id] = true
      valid[#valid + 1] = i
    end
  end
  return ids, valid, members, reply
end
