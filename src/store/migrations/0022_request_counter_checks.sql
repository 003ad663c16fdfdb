-- The request counters are updated by every API request (authorizeAndTake,
-- src/store/rate-limit-repository.ts). PostgreSQL rebuilds a table's CHECK
-- constraint expressions from their stored text in every statement that
-- writes the table (stringToNode, then planning and compiling them): a
-- visible share of the authorization statement's cost in a profile of the
-- server. The two checks of request_counters guarded
-- values that only two statements write, both in rate-limit-repository.ts
-- and request_take (migration 0011): `kind` is the route's request kind
-- ('read' or 'write') and `slot` is pg_backend_pid() % 8 or a slot that
-- request_take chose in 0-8. The unit and HTTP tests of the rate limits
-- cover both; the checks go.
alter table request_counters
  drop constraint if exists request_counters_kind_check,
  drop constraint if exists request_counters_slot_check;
