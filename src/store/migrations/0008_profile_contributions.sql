-- Contributions move out of report_profiles into their own table: an import
-- wrote each new attachment twice (insert, then the contribution update),
-- and every roll-up rewrote whole roster rows. An upsert here is cheaper and
-- keeps report_profiles rows (read by every roster page) unchanged.
create table profile_contributions (
  profile_id uuid primary key references report_profiles(id),
  report_id uuid not null references reports(id),
  contribution jsonb not null
);
insert into profile_contributions (profile_id, report_id, contribution)
  select id, report_id, contribution from report_profiles where contribution is not null;
alter table report_profiles drop column contribution;
