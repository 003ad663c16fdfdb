/**
 * States and limitations in plain words: what happened and what, if
 * anything, a team can do about it. One place for these sentences, used by
 * the report page, a person's page and the public page (docs/web.md,
 * "Plain words").
 */
import type { StatusFilter } from '../../use-cases/report-people.js';

/** How many people of a report are in each state (from their `status`: 'analyzed' or the reason there is no analysis). */
export interface PeopleStates {
  total: number;
  analyzed: number;
  /** Queued or being scanned. */
  scanning: number;
  /** Analyzed and being scanned again (a refresh): their previous results stay shown meanwhile. */
  rescanning: number;
  inaccessible: number;
  failed: number;
  cancelled: number;
  /** Scanned without usable data, or never scanned. */
  other: number;
  /** A latest scan succeeded with a warning (some sections could not be read). */
  warnings: number;
  /** Analyzed with at least one check that could not be answered. */
  unknownChecks: number;
  /** Analyzed with fields the source withholds from public view. */
  restricted: number;
}

export function peopleStates(
  statuses: readonly string[],
  flags: Pick<PeopleStates, 'warnings' | 'unknownChecks' | 'restricted' | 'rescanning'> = NO_FLAGS,
): PeopleStates {
  const count = (...of: string[]) => statuses.filter((s) => of.includes(s)).length;
  const states = {
    total: statuses.length,
    analyzed: count('analyzed'),
    scanning: count('scan_queued', 'scan_in_progress'),
    inaccessible: count('profile_inaccessible'),
    failed: count('scan_failed'),
    cancelled: count('scan_cancelled'),
  };
  return { ...states, other: states.total - states.analyzed - states.scanning - states.inaccessible - states.failed - states.cancelled, ...flags };
}

const NO_FLAGS = { warnings: 0, unknownChecks: 0, restricted: 0, rescanning: 0 };

/** The states of these people (the report page's, or a group's). */
export function peopleStatesOf(
  people: readonly { status: string; warning: boolean; unknown: number; restricted: boolean; rescanning?: boolean }[],
): PeopleStates {
  return peopleStates(
    people.map((p) => p.status),
    {
      rescanning: people.filter((p) => p.status === 'analyzed' && p.rescanning === true).length,
      warnings: people.filter((p) => p.warning).length,
      unknownChecks: people.filter((p) => p.status === 'analyzed' && p.unknown > 0).length,
      restricted: people.filter((p) => p.restricted).length,
    },
  );
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

/**
 * One kind of trouble on a report: how many people, the words that link to
 * them (the people table filtered on `filter`: use-cases/report-people.ts
 * STATUS_FILTERS) and the rest of its sentence, which says what it means
 * and what to do.
 */
export interface Trouble {
  filter: 'profile_inaccessible' | 'scan_failed' | 'scan_cancelled' | 'no_data' | 'warnings' | 'unknown_checks' | 'restricted';
  people: number;
  lead: string;
  rest: string;
  /** The people need someone to act (else it is said for understanding only). */
  action: boolean;
}

/** Every kind of trouble some of these people have, most urgent first. */
export function troubleList(s: PeopleStates): Trouble[] {
  const all: Trouble[] = [
    {
      filter: 'profile_inaccessible',
      people: s.inaccessible,
      lead: `${people(s.inaccessible)} could not be scanned`,
      rest:
        `: ${their(s.inaccessible)} not public (or the address is wrong). ` +
        'Ask them to make their profile visible to everyone, then choose “Try these again” under the people table to scan them once more.',
      action: true,
    },
    {
      filter: 'scan_failed',
      people: s.failed,
      lead: `The scan of ${people(s.failed)} failed`,
      rest:
        ' after several attempts, usually because the data service was unavailable. ' +
        'Choose “Try these again” under the people table to try once more; if it keeps failing, tell the operator of this service.',
      action: true,
    },
    {
      filter: 'scan_cancelled',
      people: s.cancelled,
      lead: `${people(s.cancelled)} ${were(s.cancelled)} not scanned`,
      rest: ' because the report was archived first. Unarchive it, then choose “Scan again” to scan them.',
      action: true,
    },
    {
      filter: 'no_data',
      people: s.other,
      lead: `${people(s.other)} ${were(s.other)} scanned without enough data`,
      rest: ' to check the profile. Scanning again later may help.',
      action: true,
    },
    {
      filter: 'warnings',
      people: s.warnings,
      lead: `${people(s.warnings)} scanned with warnings`,
      rest: ': some sections of their profile or activity could not be read, so the checks on them are unknown. Nothing is wrong with the profile; scanning again later may fill them in.',
      action: false,
    },
    {
      filter: 'unknown_checks',
      people: s.unknownChecks,
      lead: `${people(s.unknownChecks)} with unknown checks`,
      rest: ': a check is unknown when the public profile does not show what it needs. Unknown checks count neither for nor against a score.',
      action: false,
    },
    {
      filter: 'restricted',
      people: s.restricted,
      lead: `${people(s.restricted)} with hidden fields`,
      rest: ': the network hides experience and education on public profiles, and skills and featured items are not collected, so their checks are unknown, not failures. There is nothing to do.',
      action: false,
    },
  ];
  return all.filter((t) => t.people > 0);
}

/** The report's state, from its people's states. */
export function explainReport(s: PeopleStates): Explanation {
  if (s.total === 0) return { tone: 'ok', title: 'No people yet', summary: 'Nobody is on this report yet: add people to scan their profiles.', advice: [] };
  if (s.rescanning > 0) {
    const toGo = s.rescanning + s.scanning;
    return {
      tone: 'progress',
      title: 'Scanning again',
      summary: `${toGo} of ${people(s.total)} still to scan; until each finishes, their previous results are shown.`,
      advice: [],
    };
  }
  if (s.scanning > 0) {
    return {
      tone: 'progress',
      title: 'Scanning',
      summary: `${s.analyzed} of ${people(s.total)} analyzed so far; ${s.scanning} to go. Results appear as each person finishes.`,
      advice: [],
    };
  }
  const advice = troubleList(s)
    .filter((t) => t.action)
    .map((t) => t.lead + t.rest);
  if (advice.length === 0) return { tone: 'ok', title: 'Done', summary: `All ${people(s.total)} are analyzed.`, advice };
  return { tone: 'attention', title: 'Done', summary: `${s.analyzed} of ${people(s.total)} analyzed.`, advice };
}

/** Why one person has no analysis, and what to do. */
export const PERSON_ADVICE: Record<string, { title: string; advice: string }> = {
  not_requested: { title: 'Not scanned', advice: 'No scan was requested for this person. Choose “Scan again” on this page to scan them.' },
  scan_queued: { title: 'Waiting to be scanned', advice: 'This person is in the queue; their results appear here when the scan finishes.' },
  scan_in_progress: { title: 'Being scanned', advice: 'Their results appear here when the scan finishes.' },
  profile_inaccessible: {
    title: 'The profile could not be read',
    advice:
      'The profile is not public, or the address is wrong. Check the address, ask the person to make their profile visible to everyone, ' +
      'then choose “Scan again” on this page to scan them once more.',
  },
  scan_failed: {
    title: 'The scan failed',
    advice:
      'The scan failed after several attempts, usually because the data service was unavailable. Choose “Scan again” on this page to try ' +
      'once more; if it keeps failing, tell the operator of this service.',
  },
  scan_cancelled: {
    title: 'The scan was cancelled',
    advice: 'The report was archived before the scan finished. Unarchive the report, then choose “Scan again” on this page.',
  },
  no_usable_analysis: {
    title: 'Not enough data',
    advice: 'The scan finished without enough data to check the profile. Scanning again later may help.',
  },
};

/**
 * The advice on a person's page shared by a private link: its reader (usually
 * the person) has no "Scan again" button, so what to do is said for them.
 */
export const SHARED_PERSON_ADVICE: Record<string, string> = {
  not_requested: 'No scan was requested yet; the team that shared this page can scan the profile.',
  profile_inaccessible:
    'The profile is not public, or the address is wrong. Make the profile visible to everyone, then ask the team that shared this page to scan it again.',
  scan_failed: 'The scan failed after several attempts, usually because the data service was unavailable. The team that shared this page can scan it again.',
  scan_cancelled: 'The scan was stopped before it finished. The team that shared this page can scan it again.',
  no_usable_analysis: 'The scan finished without enough data to check the profile. The team that shared this page can scan it again later.',
};

/** The public page's one sentence on coverage (it shows no person, so no advice). */
export function explainCoverage(input: { people: number; analyzed: number; scanning: boolean }): string {
  if (input.people === 0) return 'Nobody is on this report yet.';
  if (input.scanning) return `Scanning is under way: results cover ${input.analyzed} of ${people(input.people)} so far.`;
  if (input.analyzed === input.people) return `Results cover all ${people(input.people)}.`;
  return `Results cover ${input.analyzed} of ${people(input.people)}; the others could not be scanned (for example, their profiles are not public).`;
}

/** The people table's status filter (use-cases/report-people.ts STATUS_FILTERS): its label, and one line on what it means and what to do. */
export const STATUS_FILTER_WORDS: Record<StatusFilter, { label: string; explanation: string }> = {
  analyzed: { label: 'Analyzed', explanation: 'Their profile was scanned and checked.' },
  scanning: { label: 'Waiting or being scanned', explanation: 'Their scan is queued or running; their results appear when it finishes.' },
  profile_inaccessible: {
    label: 'Could not be scanned',
    explanation:
      'Their profile is not public, or the address is wrong. Ask them to make it visible to everyone, then choose “Try these again” under the people table to scan them once more.',
  },
  scan_failed: { label: 'Scan failed', explanation: PERSON_ADVICE.scan_failed.advice },
  scan_cancelled: {
    label: 'Scan cancelled',
    explanation: 'The report was archived before their scan finished. Unarchive the report, then choose “Scan again” to scan them.',
  },
  no_data: {
    label: 'Not enough data',
    explanation: 'Their scan finished without enough data to check the profile, or none was requested. Scanning again later may help.',
  },
  warnings: {
    label: 'Scanned with warnings',
    explanation: 'Some sections of their profile or activity could not be read, so the checks on them are unknown. Scanning again later may fill them in.',
  },
  unknown_checks: {
    label: 'With unknown checks',
    explanation: 'The public profile does not show what some checks need. Unknown checks count neither for nor against a score.',
  },
  restricted: {
    label: 'With hidden fields',
    explanation:
      'The network hides experience and education on public profiles, and skills and featured items are not collected: those checks are unknown, not failures. There is nothing to do.',
  },
};
