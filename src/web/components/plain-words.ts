/**
 * States and limitations in plain words: what happened and what, if
 * anything, a team can do about it. One place for these sentences, used by
 * the report page, a person's page and the public page (docs/web.md,
 * "Plain words").
 */

/** How many people of a report are in each state (from their `status`: 'analyzed' or the reason there is no analysis). */
export interface PeopleStates {
  total: number;
  analyzed: number;
  /** Queued or being scanned. */
  scanning: number;
  inaccessible: number;
  failed: number;
  cancelled: number;
  /** Scanned without usable data, or never scanned. */
  other: number;
}

export function peopleStates(statuses: readonly string[]): PeopleStates {
  const count = (...of: string[]) => statuses.filter((s) => of.includes(s)).length;
  const states = {
    total: statuses.length,
    analyzed: count('analyzed'),
    scanning: count('scan_queued', 'scan_in_progress'),
    inaccessible: count('profile_inaccessible'),
    failed: count('scan_failed'),
    cancelled: count('scan_cancelled'),
  };
  return { ...states, other: states.total - states.analyzed - states.scanning - states.inaccessible - states.failed - states.cancelled };
}

const people = (n: number) => (n === 1 ? '1 person' : `${n} people`);
const were = (n: number) => (n === 1 ? 'was' : 'were');
const their = (n: number) => (n === 1 ? 'their profile is' : 'their profiles are');

export interface Explanation {
  /** 'attention' when some people need a team's action. */
  tone: 'ok' | 'progress' | 'attention';
  /** A short status, e.g. "Scanning" or "Done". */
  title: string;
  /** What happened. */
  summary: string;
  /** One sentence per group of people who need attention, with what to do. */
  advice: string[];
}

/** The report's state, from its people's states. */
export function explainReport(s: PeopleStates): Explanation {
  if (s.total === 0) return { tone: 'ok', title: 'No people yet', summary: 'Nobody is on this report yet: add people to scan their profiles.', advice: [] };
  if (s.scanning > 0) {
    return {
      tone: 'progress',
      title: 'Scanning',
      summary: `${s.analyzed} of ${people(s.total)} analyzed so far; ${s.scanning} to go. Results appear as each person finishes.`,
      advice: [],
    };
  }
  const advice: string[] = [];
  if (s.inaccessible > 0) {
    advice.push(
      `${people(s.inaccessible)} could not be scanned: ${their(s.inaccessible)} not public (or the address is wrong). ` +
        'Ask them to make their profile visible to everyone, then remove them from this report and add them again to scan them once more.',
    );
  }
  if (s.failed > 0) {
    advice.push(
      `The scan of ${people(s.failed)} failed after several attempts, usually because the data service was unavailable. ` +
        'Remove them and add them again to try once more; if it keeps failing, tell the operator of this service.',
    );
  }
  if (s.cancelled > 0) {
    advice.push(`${people(s.cancelled)} ${were(s.cancelled)} not scanned because the report was archived first. Add them again to scan them.`);
  }
  if (s.other > 0) {
    advice.push(`${people(s.other)} ${were(s.other)} scanned without enough data to check the profile. Adding them again later may help.`);
  }
  if (advice.length === 0) return { tone: 'ok', title: 'Done', summary: `All ${people(s.total)} are analyzed.`, advice };
  return { tone: 'attention', title: 'Done', summary: `${s.analyzed} of ${people(s.total)} analyzed.`, advice };
}

/** Why one person has no analysis, and what to do. */
export const PERSON_ADVICE: Record<string, { title: string; advice: string }> = {
  not_requested: { title: 'Not scanned', advice: 'No scan was requested for this person. Add them again to scan them.' },
  scan_queued: { title: 'Waiting to be scanned', advice: 'This person is in the queue; their results appear here when the scan finishes.' },
  scan_in_progress: { title: 'Being scanned', advice: 'Their results appear here when the scan finishes.' },
  profile_inaccessible: {
    title: 'The profile could not be read',
    advice:
      'The profile is not public, or the address is wrong. Check the address, ask the person to make their profile visible to everyone, ' +
      'then remove them from this report and add them again to scan them once more.',
  },
  scan_failed: {
    title: 'The scan failed',
    advice:
      'The scan failed after several attempts, usually because the data service was unavailable. Remove this person and add them again to try ' +
      'once more; if it keeps failing, tell the operator of this service.',
  },
  scan_cancelled: { title: 'The scan was cancelled', advice: 'The report was archived before the scan finished. Add the person again to scan them.' },
  no_usable_analysis: {
    title: 'Not enough data',
    advice: 'The scan finished without enough data to check the profile. Adding the person again later may help.',
  },
};

/** The public page's one sentence on coverage (it shows no person, so no advice). */
export function explainCoverage(input: { people: number; analyzed: number; scanning: boolean }): string {
  if (input.people === 0) return 'Nobody is on this report yet.';
  if (input.scanning) return `Scanning is under way: results cover ${input.analyzed} of ${people(input.people)} so far.`;
  if (input.analyzed === input.people) return `Results cover all ${people(input.people)}.`;
  return `Results cover ${input.analyzed} of ${people(input.people)}; the others could not be scanned (for example, their profiles are not public).`;
}
