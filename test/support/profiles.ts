/** Collected data shared by the tests of what is drawn and evaluated from it. */
import type { CollectedActivityEvent, CollectedProfile } from '../../src/domain/collected.js';

/** A profile with every member observed. */
export const JANE_PROFILE: CollectedProfile = {
  name: 'Jane Doe',
  headline: 'Head of Partnerships at Globex',
  about: 'Helping revenue teams grow pipeline. Reach out if you want to compare notes.',
  location: 'Lisbon, Portugal',
  has_photo: true,
  has_banner: false,
  custom_url: true,
  connections: 812,
  followers: 1204,
  positions: [{ title: 'Head of Partnerships', company: 'Globex', start: '2021-03', end: null, description: null }],
  skills: ['SQL', 'Public Speaking'],
  featured_count: 2,
  education_count: 1,
  recommendations_received: 0,
  languages: ['English'],
  certifications_count: 0,
};

/** One post of hers, with a count not observed. */
export const JANE_POST: CollectedActivityEvent = {
  external_id: 'e1',
  event_type: 'post',
  actor: { kind: 'person', url: 'https://pronet.example/in/jane-doe', name: 'Jane Doe' },
  source_url: null,
  text: 'We shipped the partner portal today.',
  occurred_at: '2026-10-28T09:00:00Z',
  counts: { reactions: 12, comments: null, reposts: 0 },
};
