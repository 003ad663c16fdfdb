/**
 * The latest full-profile item of a person on a report: its status and
 * warning say why a person without an analysis has none (the findings
 * record's `reason`, domain/findings-text.ts). One SQL fragment, joined
 * laterally by every read that shows that reason (the API's findings pages,
 * the web's people table and person page), as `li.status` and `li.warning`.
 *
 * The newest run first, then the newest item of it: a person scanned again
 * reads the state of the new scan. The item's copy of its run's mode and
 * creation (migration 0056, held to the run by its foreign key) makes that
 * order one walk of the index scan_items_profile_latest.
 */

/** `left join lateral (…) li on true` for the report attachment aliased `person` (columns `id`, `report_id`). */
export function latestFullItemJoin(person: string): string {
  if (!/^[a-z_]+$/.test(person)) throw new Error(`latestFullItemJoin: not an alias: ${person}`);
  return `left join lateral (
        select i.status, i.warning
          from scan_items i
         where i.report_id = ${person}.report_id and i.profile_id = ${person}.id and i.run_mode = 'full_profile'
         order by i.run_created_at desc, i.created_at desc
         limit 1) li on true`;
}
