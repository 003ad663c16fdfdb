/**
 * Edits of simulated profiles (docs/collectors.md, "Making a person's next
 * scan differ"): a JSON file (SIMULATOR_EDITS) that says, per person, how
 * their profile reads from now on, so that a demo or a new user can see
 * progress between two scans without a real provider. The file is read
 * again whenever it changes; a broken file edits nothing, and says why once
 * per change.
 *
 * {
 *   "https://www.pronet.example/in/jane-doe": { "polish": true },
 *   "https://www.pronet.example/in/sam-smith": { "profile": { "headline": "", "has_photo": false } },
 *   "https://www.pronet.example/in/kim-lee": { "inaccessible": true }
 * }
 *
 * A person is named by their profile URL (its last path segment decides, as
 * for the magic prefixes). `polish` fills in what the checks ask for (a
 * headline with a role and focus, an about text with a call to action, a
 * photo, a banner, a custom URL, skills, featured items, languages,
 * recommendations); `profile` sets fields of the observed profile (applied
 * after `polish`); `inaccessible` makes the profile private. An edited
 * profile is observed a minute after the simulator's reference time, later
 * than any unedited observation.
 */
import { readFileSync, statSync } from 'node:fs';
import type { CollectedProfile } from '../collector.js';
import { lastPathSegment } from './context.js';

export interface ProfileEdit {
  polish?: boolean;
  profile?: Partial<CollectedProfile>;
  inaccessible?: boolean;
}

const PROFILE_FIELDS = new Set([
  'name',
  'headline',
  'about',
  'location',
  'has_photo',
  'has_banner',
  'custom_url',
  'connections',
  'followers',
  'positions',
  'skills',
  'featured_count',
  'education_count',
  'recommendations_received',
  'languages',
  'certifications_count',
]);

/** The edits of a file's text, by lower-cased last path segment; throws with what is wrong. */
export function parseEdits(text: string): Map<string, ProfileEdit> {
  const data: unknown = JSON.parse(text);
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error('the file must hold one JSON object, keyed by profile URL');
  const edits = new Map<string, ProfileEdit>();
  for (const [url, value] of Object.entries(data as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${url}: an edit is an object`);
    const edit = value as Record<string, unknown>;
    for (const key of Object.keys(edit)) {
      if (!['polish', 'profile', 'inaccessible'].includes(key)) throw new Error(`${url}: unknown member "${key}" (polish, profile, inaccessible)`);
    }
    if (edit.polish !== undefined && typeof edit.polish !== 'boolean') throw new Error(`${url}: "polish" is true or false`);
    if (edit.inaccessible !== undefined && typeof edit.inaccessible !== 'boolean') throw new Error(`${url}: "inaccessible" is true or false`);
    if (edit.profile !== undefined) {
      if (typeof edit.profile !== 'object' || edit.profile === null || Array.isArray(edit.profile)) throw new Error(`${url}: "profile" is an object`);
      for (const field of Object.keys(edit.profile)) if (!PROFILE_FIELDS.has(field)) throw new Error(`${url}: "profile.${field}" is not a profile field`);
    }
    edits.set(lastPathSegment(url).toLowerCase(), edit);
  }
  return edits;
}

/** The profile as an edit leaves it. */
export function editedProfile(profile: CollectedProfile, edit: ProfileEdit, employer: string): CollectedProfile {
  const polished: Partial<CollectedProfile> = edit.polish
    ? {
        headline: `Solutions Engineer | Cloud security for mid-size teams | ${employer}`,
        about:
          `I help mid-size teams ship secure cloud platforms without slowing down. At ${employer} I lead onboarding for new customers, ` +
          'run workshops on threat modelling and write about what we learn along the way. Before that I spent six years building ' +
          'data pipelines for retail and logistics companies. If you are planning a migration or an audit, message me: I am happy ' +
          'to share what worked for us and what did not.',
        has_photo: true,
        has_banner: true,
        custom_url: true,
        skills: ['Cloud security', 'Kubernetes', 'Threat modelling', 'Technical onboarding', 'Python', 'Public speaking', 'Solution design', 'AWS'],
        featured_count: 3,
        recommendations_received: 4,
        languages: ['English', 'German'],
        certifications_count: 2,
        education_count: profile.education_count ?? 1,
      }
    : {};
  return { ...profile, ...polished, ...(edit.profile ?? {}) };
}

/** Reads SIMULATOR_EDITS again when the file changed (by size and modification time); no file: no edits. */
export function editsReader(file: string | null, log: (message: string) => void = () => undefined): (url: string) => ProfileEdit | undefined {
  if (file === null) return () => undefined;
  let seen = '';
  let edits = new Map<string, ProfileEdit>();
  return (url) => {
    let stamp: string;
    try {
      const stat = statSync(file);
      stamp = `${stat.size}:${stat.mtimeMs}`;
    } catch {
      stamp = 'missing';
    }
    if (stamp !== seen) {
      seen = stamp;
      edits = new Map();
      if (stamp !== 'missing') {
        try {
          edits = parseEdits(readFileSync(file, 'utf8'));
        } catch (error) {
          log(`SIMULATOR_EDITS: ${file} edits nothing: ${(error as Error).message}`);
        }
      }
    }
    return edits.get(lastPathSegment(url).toLowerCase());
  };
}
