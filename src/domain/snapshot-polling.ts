/**
 * When a provider's snapshot (an asynchronous job) is asked for its progress
 * again. A fixed interval makes every snapshot wait up to a whole interval
 * after it is ready; a pause that grows with the snapshot's age keeps that
 * lateness a small share of the time the provider itself took, while a long
 * job is asked no more often than the operator's interval allows.
 *
 * Progress polls are not billed. The number of polls a snapshot costs is
 * `pollsUntilReady` (docs/collectors.md, "Bright Data").
 */

/** The first poll comes this soon after the trigger: a small job is often ready within seconds. */
export const FIRST_POLL_MS = 1_000;
/** Each later pause is this share of the snapshot's age, so a ready snapshot is seen at most this share late. */
export const POLL_AGE_SHARE = 0.1;

/** The pause before the next progress poll of a snapshot triggered `ageMs` ago, never longer than `capMs` (the setting). */
export function snapshotPollPauseMs(ageMs: number, capMs: number): number {
  return Math.max(1, Math.min(capMs, Math.max(FIRST_POLL_MS, Math.ceil(Math.max(0, ageMs) * POLL_AGE_SHARE))));
}

/** How many progress polls a snapshot that is ready `readyMs` after its trigger costs (the last one sees it ready). */
export function pollsUntilReady(readyMs: number, capMs: number): number {
  let age = 0;
  let polls = 0;
  for (;;) {
    age += snapshotPollPauseMs(age, capMs);
    polls++;
    if (age >= readyMs) return polls;
  }
}
