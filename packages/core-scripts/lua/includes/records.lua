--[[ include: records - reading and classifying dead-letter records before the admin retry scripts write
The admin retry scripts read every dead-letter record of a call, and classify it, before their
first write, so a refusal changes nothing.

  respire_plan_records(stream, ids, foreign_reason)
      -> reply, plan: for each position i of `ids`, reply[i] = { 0, '' } when the record is missing
         (or its ID came earlier in the call) and { -1, reason } when foreign_reason(fields)
         returns a reason; every other record is planned as { i, id, fields }, in order, with
         reply[i] left for the caller. RESPIRE_WRONGTYPE when `stream` holds another type.
]]
--@include types

local function respire_plan_records(stream, ids, foreign_reason)
  local reply, plan, seen = {}, {}, {}
  for i = 1, #ids do
    local id = ids[i]
    local record = nil
    if not seen[id] then
      seen[id] = true
      record = respire_typed_call(stream, 'stream', 'XRANGE', stream, id, id)[1]
    end
    if not record then
      reply[i] = { 0, '' }
    else
      local reason = foreign_reason(record[2])
      if reason then
        reply[i] = { -1, reason }
      else
        plan[#plan + 1] = { i, id, record[2] }
      end
    end
  end
  return reply, plan
end
