/**
 * A local server that behaves as Bright Data's documentation says its
 * Scraper API does, for the LinkedIn profiles, posts and companies datasets
 * (docs/collectors.md, "Bright Data"; the pages it was built from are listed
 * there). No code of profile-scan is used here: only the documented wire
 * format.
 *
 *   POST /datasets/v3/scrape?dataset_id=…   up to 20 inputs, {"input":[{url}]} as its reference documents
 *        (`bodies: 'both'` also takes a bare array); 200 with the records, or — for `slowSync`
 *        calls — {snapshot_id, message} under 202 (or 200 with `interimStatus: 200`)
 *   POST /datasets/v3/trigger?dataset_id=…[&type=discover_new&discover_by=profile_url&limit_per_input=N]
 *        a bare array [{url}] as its reference documents (`bodies: 'both'` also takes {"input":[…]});
 *        any other body is refused with 400 and a message. 200 {snapshot_id}
 *   GET  /datasets/v3/progress/{id}         {snapshot_id, dataset_id, status}: starting → running → ready
 *        (one step per poll; `failed` for snapshots made while `failSnapshots` is set, which bill
 *        nothing); 404 for a snapshot it lost (`loseReadySnapshots`: built and billed, then gone)
 *   GET  /datasets/v3/snapshot/{id}?format=json   200 records; not ready: 409 "Snapshot is not ready for
 *        download", or with `interimStatus` 200/202 {"status":"running","message":"Snapshot is not ready yet…"};
 *        the first `buildingAfterReady` downloads after progress said ready answer {"status":"building",…}; 404
 *   401 without the key; 429 {error} (with or without Retry-After) for the next `rateLimitNext` calls;
 *   an outage (`outage`): 503 without Retry-After, 500, refused connections (the port closed), or a
 *   socket that accepts the request and never answers.
 *
 * Posts of a discovery come in the shape `postsShape` picks: `echo` (each
 * record's `input.url` is the profile URL sent), `discovery` (captures: the
 * post's own URL in `input.url`, the profile URL sent in `discovery_input`),
 * `author` (only the author's `user_id` and `use_url` name the person), or
 * `stranger` (records of someone who was not asked for). A profile without
 * posts gets the error row "No public posts were found in the profile for the
 * specified period." (error_code dead_page).
 *
 * Records follow the documented response schemas field for field (profiles:
 * `id`, `name`, `city`, `position`, `about`, `experience`, `education`,
 * `avatar`, `banner_image`, `default_avatar`, `followers`, `connections` …;
 * posts: `id`, `url`, `post_text`, `date_posted`, `num_likes`, `num_comments`,
 * `post_type` …; companies: `name`, `slogan`, `industries`, `followers`,
 * `website`, `logo`, `updates` …), each with `input` and `timestamp`, in an
 * order that changes from call to call, as the real API's does. Since
 * LinkedIn's 2025-11-13 policy change `position`, `experience` and
 * `education` are null for most profiles; a `cached-` profile has them.
 *
 * The last path segment of a profile URL picks the record:
 *   private-…    error row: "The profile is hidden or private." (error_code dead_page)
 *   crawlfail-…  error row: "Crawler error" (error_code crawl_failed)
 *   throttled-…  error row: "Your system is sending too many of this type of request…"
 *   warned-…     a record with `warning` / `warning_code`, `about` null
 *   missing-…    no record at all
 *   cached-…     position, experience and education filled (the ~2 % served from cache)
 *   nophoto-…    default avatar and stock banner
 *   quiet-…      no posts
 * Images (avatar, banner, logo) point at `imageBase` (a fake CDN).
 *
 * Standalone: node --import tsx test/support/fake-brightdata.ts --port 9199 [--api-key KEY] [--image-base https://…]
 *   [--bodies both] [--interim-status 200|202] [--building-after-ready N] [--posts-shape echo|discovery|author|stranger]
 *   [--slow-sync] [--latency-ms N] [--lose-ready N]
 * SIGUSR1 turns an outage (503 to every request) on and off; on SIGINT or SIGTERM it prints the
 * records it billed, per dataset.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

export const DATASETS = { profiles: 'gd_l1viktl72bvl7bjuj0', companies: 'gd_l1vikfnt1wgvvqz95w', posts: 'gd_lyy3tktm25m4avu764' } as const;

export interface FakeBrightDataCall {
  method: string;
  path: string;
  datasetId: string | null;
  /** The input URLs of a scrape or trigger call. */
  urls: string[];
  query: Record<string, string>;
  at: number;
  /** When its answer was sent (undefined while it is in flight, or when it never was). */
  endedAt?: number;
  /** When it arrived: `latencyMs` before `at`. */
  arrivedAt: number;
}

export interface FakeBrightData {
  url: string;
  calls: FakeBrightDataCall[];
  /** Data records returned (what the API bills), per dataset. */
  billed: Record<string, number>;
  /** The next n scrape/trigger calls answer 429 (with `retryAfter` seconds, or none when null). */
  rateLimitNext(n: number, retryAfter?: number | null): void;
  /** Scrape calls answer 202 with a snapshot while set. */
  slowSync: boolean;
  /** Snapshots triggered while set end `failed` (never built: nothing billed). */
  failSnapshots: boolean;
  /** The next n snapshots whose progress answers ready are lost right after (progress and download then 404): built and billed, never delivered. */
  loseReadySnapshots: number;
  /** Progress polls a snapshot needs before it is ready (default 2: starting, running). */
  pollsUntilReady: number;
  /** Which body forms the job endpoints take: each its documented one, or both on both. */
  bodies: 'reference' | 'both';
  /** The status of the interim "not ready" answers (a 202 of /scrape turned snapshot; a not-ready download); null: 409 for downloads. */
  interimStatus: 200 | 202 | null;
  /** Downloads answered {"status":"building"} after progress said ready, per snapshot. */
  buildingAfterReady: number;
  postsShape: 'echo' | 'discovery' | 'author' | 'stranger';
  /** Every request answers this way while set. */
  outage: null | '503' | '500' | 'refuse' | 'hang';
  /** Answers every request after this many ms (the provider's own time). */
  latencyMs: number;
  /** Snapshots created (each a trigger, or a /scrape that turned into one). */
  snapshotsCreated: number;
  /** A snapshot is ready this long after it was made (0: after `pollsUntilReady` polls). */
  snapshotMs: number;
  /** The provider's own busy time: each answered request's span (from its arrival, the answer time included) and each snapshot's making, as [start, end] ms. */
  busyIntervals(): Array<[number, number]>;
  /** Their ids, and those whose records were downloaded. */
  snapshotIds: string[];
  delivered: Set<string>;
  close(): Promise<void>;
}

interface Snapshot {
  datasetId: string;
  records: unknown[];
  polls: number;
  failed: boolean;
  lost: boolean;
  building: number;
  createdAt: number;
}

function slugOf(url: string): string {
  try {
    return new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
  } catch {
    return '';
  }
}

/** A small deterministic hash of a string (fixture variety). */
function hash(text: string): number {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

const titleCase = (slug: string) =>
  slug
    .split('-')
    .filter((p) => p && !/^[0-9a-f]{6,}$/.test(p))
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join(' ') || 'Member';

function errorRow(url: string, error: string, code: string) {
  return { input: { url }, error, error_code: code, timestamp: new Date().toISOString() };
}

/** A profiles-dataset record (the documented fields, in the documented shapes). */
export function profileRecord(url: string, imageBase: string): Record<string, unknown> | null {
  const slug = slugOf(url);
  if (slug.startsWith('private-')) return errorRow(url, 'The profile is hidden or private.', 'dead_page');
  if (slug.startsWith('crawlfail-')) return errorRow(url, 'Crawler error', 'crawl_failed');
  if (slug.startsWith('throttled-')) {
    return errorRow(
      url,
      'Crawler error: Your system is sending too many of this type of request. If you need to send more, contact your Account Manager',
      'crawl_failed',
    );
  }
  if (slug.startsWith('missing-')) return null;
  const h = hash(slug);
  const name = titleCase(slug.replace(/^(cached|warned|nophoto|quiet)-/, ''));
  const [first, ...rest] = name.split(' ');
  const cached = slug.startsWith('cached-');
  const warned = slug.startsWith('warned-');
  const nophoto = slug.startsWith('nophoto-');
  const company = ['Acme', 'Globex', 'Initech'][h % 3];
  return {
    id: slug,
    name,
    city: ['Berlin, Berlin, Germany', 'Lyon, Auvergne-Rhône-Alpes, France', 'Austin, Texas, United States'][h % 3],
    country_code: ['DE', 'FR', 'US'][h % 3],
    // Since 2025-11-13: Position, Experience and Education are ~2 % filled, from cache.
    position: cached ? `Head of Growth at ${company}` : null,
    about: warned ? null : h % 4 === 0 ? null : `I help ${company} customers get more from their data. ${'Building teams and products. '.repeat(1 + (h % 5))}`,
    posts: null,
    current_company: { company_id: company.toLowerCase(), link: `https://www.linkedin.com/company/${company.toLowerCase()}`, location: null, name: company },
    experience: cached
      ? [
          {
            company,
            company_id: company.toLowerCase(),
            company_logo_url: `${imageBase}/logo.webp`,
            title: 'Head of Growth',
            location: 'Berlin',
            start_date: 'Mar 2021',
            end_date: 'Present',
            description_html: null,
            description: 'Growth, analytics and partnerships.',
          },
          { company: 'Initech', title: 'Analyst', start_date: 'Jan 2017', end_date: 'Feb 2021', description: null },
        ]
      : null,
    url,
    people_also_viewed: [],
    educations_details: cached ? 'Universität Wien' : null,
    education: cached ? [{ title: 'Universität Wien', degree: 'MSc', field: 'Economics', start_year: '2012', end_year: '2016', url: null }] : null,
    recommendations_count: h % 3 === 0 ? 2 : null,
    avatar: nophoto ? 'https://static.licdn.com/aero-v1/sc/h/9c8pery4andzj6ohjkjp54ma2' : `${imageBase}/photo.jpg`,
    courses: null,
    languages:
      h % 2 === 0
        ? [
            { title: 'English', subtitle: 'Full professional proficiency' },
            { title: 'German', subtitle: 'Native' },
          ]
        : null,
    certifications: h % 5 === 0 ? [{ title: 'Google Analytics', subtitle: 'Google', meta: 'Issued Jan 2024' }] : null,
    recommendations: null,
    volunteer_experience: null,
    followers: 100 + (h % 5000),
    connections: h % 7 === 0 ? 500 : 40 + (h % 460),
    current_company_company_id: company.toLowerCase(),
    current_company_name: company,
    publications: null,
    patents: null,
    projects: null,
    organizations: null,
    location: ['Berlin', 'Lyon', 'Austin'][h % 3],
    input_url: url,
    linkedin_id: slug,
    activity: null,
    linkedin_num_id: String(100000000 + (h % 899999999)),
    banner_image: nophoto ? 'https://static.licdn.com/aero-v1/sc/h/5q92mjc5c51bjlwaj3rs9aa82' : `${imageBase}/banner.png`,
    honors_and_awards: null,
    similar_profiles: [],
    default_avatar: nophoto,
    memorialized_account: false,
    bio_links: [],
    first_name: first,
    last_name: rest.join(' ') || null,
    influencer: false,
    ...(warned ? { warning: 'Some of the profile could not be collected', warning_code: 'partial_data' } : {}),
    timestamp: new Date().toISOString(),
    input: { url },
  };
}

/** The posts-dataset records discovered for a profile (at most `limit`), in the shape asked for. */
export function postRecords(profileUrl: string, limit: number, shape: FakeBrightData['postsShape'] = 'echo'): Record<string, unknown>[] {
  const slug = slugOf(profileUrl);
  const discovery = shape === 'discovery' ? { discovery_input: { url: profileUrl } } : {};
  if (slug.startsWith('private-')) return [{ ...errorRow(profileUrl, 'The profile is hidden or private.', 'dead_page'), ...discovery }];
  if (slug.startsWith('quiet-')) {
    return [{ ...errorRow(profileUrl, 'No public posts were found in the profile for the specified period.', 'dead_page'), ...discovery }];
  }
  if (slug.startsWith('crawlfail-')) return [{ ...errorRow(profileUrl, 'Crawler error', 'crawl_failed'), ...discovery }];
  if (slug.startsWith('missing-')) return [];
  if (shape === 'stranger')
    return postRecords(`https://www.linkedin.com/in/stranger-of-${slug}`, limit, 'author').map((r) => ({ ...r, input: { url: r.url } }));
  const h = hash(slug);
  const count = Math.min(limit, 1 + (h % 3));
  return Array.from({ length: count }, (_, i) => {
    const id = String(7400000000000000000n + BigInt((h % 1000000) * 10 + i));
    const repost = i === 2;
    return {
      url: `https://www.linkedin.com/posts/${slug}_activity-${id}`,
      id,
      user_id: slug,
      use_url: profileUrl,
      title: `Post ${i + 1} by ${titleCase(slug)}`,
      headline: null,
      post_text: `Thoughts on data teams, number ${i + 1}. #data`,
      date_posted: new Date(Date.now() - (i + 1) * 3 * 86_400_000).toISOString(),
      hashtags: ['#data'],
      embedded_links: [],
      images: null,
      videos: null,
      num_likes: 3 + ((h >> i) % 40),
      num_comments: (h >> (i + 3)) % 6,
      more_articles_by_user: null,
      more_relevant_posts: null,
      top_visible_comments: null,
      user_followers: 100 + (h % 5000),
      user_posts: count,
      user_articles: 0,
      post_type: repost ? 'repost' : 'post',
      account_type: 'Person',
      post_text_html: `Thoughts on data teams, number ${i + 1}. <a href="#">#data</a>`,
      repost: repost ? { repost_url: 'https://www.linkedin.com/posts/acme_activity-1', repost_user_id: 'acme', repost_text: 'Original' } : null,
      tagged_companies: [],
      tagged_people: [],
      user_title: null,
      author_profile_pic: null,
      num_connections: null,
      video_duration: null,
      external_link_data: null,
      video_thumbnail: null,
      document_cover_image: null,
      document_page_count: null,
      original_post_text: `Thoughts on data teams, number ${i + 1}. #data`,
      timestamp: new Date().toISOString(),
      // Captures of a discovery: the post's own URL as the input, the profile sent in discovery_input.
      input: { url: shape === 'echo' ? profileUrl : `https://www.linkedin.com/feed/update/urn:li:activity:${id}` },
      ...(shape === 'author' ? { use_url: null } : {}),
      ...discovery,
    };
  });
}

/** A companies-dataset record. */
export function companyRecord(url: string, imageBase: string): Record<string, unknown> {
  const slug = slugOf(url);
  if (slug.startsWith('private-')) return errorRow(url, 'Page not found', 'dead_page');
  const name = titleCase(slug);
  return {
    id: slug,
    name,
    country_code: 'US',
    locations: ['1 Main St, Springfield, US'],
    followers: 12034,
    employees_in_linkedin: 120,
    about: `${name} builds tools for data teams.`,
    specialties: 'Analytics, Data',
    company_size: '51-200 employees',
    organization_type: 'Privately Held',
    industries: 'Software Development',
    website: `https://www.${slug}.example/`,
    crunchbase_url: null,
    founded: 2012,
    company_id: String(hash(slug) % 10000000),
    employees: [],
    headquarters: 'Springfield, US',
    image: `${imageBase}/banner.png`,
    logo: `${imageBase}/logo.webp`,
    similar: [],
    url,
    updates: [
      {
        date: new Date(Date.now() - 2 * 86_400_000).toISOString(),
        likes_count: 14,
        comments_count: 2,
        post_id: `74393915474035${hash(slug) % 100000}`,
        post_url: `https://www.linkedin.com/feed/update/urn:li:activity:74393915474035${hash(slug) % 100000}/`,
        text: `${name} at the conference: what we learned.`,
        text_html: `${name} at the conference: what we learned.`,
        time: '2d',
        title: name,
      },
    ],
    slogan: `Data, made useful`,
    sphere: 'Software Development',
    type: 'Privately Held',
    formatted_locations: ['Springfield, US'],
    investors: [],
    affiliated: [],
    description: `${name} | 12,034 followers on LinkedIn.`,
    timestamp: new Date().toISOString(),
    input: { url },
  };
}

export async function startFakeBrightData(
  options: { apiKey?: string; imageBase?: string; port?: number; bodies?: 'reference' | 'both' } = {},
): Promise<FakeBrightData> {
  const apiKey = options.apiKey ?? 'bd-test-key';
  const imageBase = (options.imageBase ?? 'https://cdn.profile-scan.test').replace(/\/+$/, '');
  const snapshots = new Map<string, Snapshot>();
  const calls: FakeBrightDataCall[] = [];
  const billed: Record<string, number> = {};
  let rateLimited = 0;
  let retryAfter: number | null = 1;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };

  const shuffle = <T>(items: T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };

  /** The records a dataset answers for these inputs (counting what is billed, unless `bill` is false: a job that fails). */
  const recordsFor = (datasetId: string, urls: string[], query: URLSearchParams, bill = true): unknown[] => {
    let records: unknown[] = [];
    if (datasetId === DATASETS.profiles) records = urls.map((u) => profileRecord(u, imageBase)).filter((r) => r !== null);
    else if (datasetId === DATASETS.companies) records = urls.map((u) => companyRecord(u, imageBase));
    else if (datasetId === DATASETS.posts) {
      if (query.get('type') !== 'discover_new' || query.get('discover_by') !== 'profile_url') {
        records = urls.map((u) => errorRow(u, 'Input URL must be a post URL', 'invalid_input'));
      } else {
        const limit = Number(query.get('limit_per_input') ?? '1000');
        records = urls.flatMap((u) => postRecords(u, limit, fake.postsShape));
      }
    } else {
      records = urls.map((u) => errorRow(u, 'Unknown dataset', 'invalid_dataset'));
    }
    if (bill) billed[datasetId] = (billed[datasetId] ?? 0) + records.filter((r) => !('error' in (r as object))).length;
    return shuffle(records);
  };

  /** The inputs of a job, in the body form the endpoint takes (its documented one, or both with `bodies: 'both'`). */
  const readInputs = async (req: IncomingMessage, endpoint: 'scrape' | 'trigger'): Promise<string[] | null> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
      const documented = endpoint === 'trigger' ? Array.isArray(json) : !Array.isArray(json);
      if (!documented && fake.bodies === 'reference') return null;
      const list = Array.isArray(json) ? json : (json as { input?: unknown }).input;
      if (!Array.isArray(list)) return null;
      const urls = list.map((i) => (i as { url?: unknown }).url);
      return urls.every((u): u is string => typeof u === 'string') ? urls : null;
    } catch {
      return null;
    }
  };

  const newSnapshot = (datasetId: string, records: unknown[], failed: boolean) => {
    const id = `s_${randomBytes(9).toString('hex')}`;
    snapshots.set(id, { datasetId, records, polls: 0, failed, lost: false, building: fake.buildingAfterReady, createdAt: Date.now() });
    fake.snapshotsCreated++;
    fake.snapshotIds.push(id);
    return id;
  };

  const isReady = (snapshot: Snapshot) => (fake.snapshotMs > 0 ? Date.now() - snapshot.createdAt >= fake.snapshotMs : snapshot.polls > fake.pollsUntilReady);
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    void (async () => {
      if (fake.outage === 'hang') {
        // Accepts the request and never answers: the client's exchange timeout ends it.
        hanging.add(res);
        return;
      }
      if (fake.outage === '503') return send(res, 503, { error: 'Service Unavailable' });
      if (fake.outage === '500') return send(res, 500, { error: 'Internal Server Error' });
      const arrivedAt = Date.now();
      if (fake.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.latencyMs));
      const url = new URL(req.url ?? '/', 'http://fake.invalid');
      const query = Object.fromEntries(url.searchParams);
      const datasetId = url.searchParams.get('dataset_id');
      const call: FakeBrightDataCall = { method: req.method ?? '', path: url.pathname, datasetId, urls: [], query, at: Date.now(), arrivedAt };
      calls.push(call);
      res.once('finish', () => (call.endedAt = Date.now()));
      if (req.headers.authorization !== `Bearer ${apiKey}`) return send(res, 401, { error: 'User authentication is required' });

      const job = url.pathname === '/datasets/v3/scrape' || url.pathname === '/datasets/v3/trigger';
      if (job && req.method === 'POST') {
        const inputs = await readInputs(req, url.pathname === '/datasets/v3/trigger' ? 'trigger' : 'scrape');
        if (inputs === null || inputs.length === 0) return send(res, 400, { error: 'Invalid input provided: input must be an array of objects' });
        call.urls = inputs;
        if (!datasetId) return send(res, 400, { error: 'dataset_id is required' });
        if (rateLimited > 0) {
          rateLimited--;
          return send(
            res,
            429,
            { error: 'Maximum limit of 100 jobs per dataset has been exceeded' },
            retryAfter === null ? {} : { 'retry-after': String(retryAfter) },
          );
        }
        if (url.pathname === '/datasets/v3/scrape') {
          if (inputs.length > 20) return send(res, 400, { error: 'Synchronous requests support up to 20 URLs; use /trigger' });
          if (datasetId === DATASETS.posts && url.searchParams.get('type') === 'discover_new') {
            return send(res, 400, { error: 'Discovery is not supported by synchronous requests' });
          }
          const records = recordsFor(datasetId, inputs, url.searchParams);
          if (fake.slowSync) {
            // Over a minute on the provider's side: the request turns into a snapshot.
            return send(res, fake.interimStatus ?? 202, {
              snapshot_id: newSnapshot(datasetId, records, false),
              message: 'Your request is still in progress and may take a few minutes to complete.',
            });
          }
          return send(res, 200, records);
        }
        const failed = fake.failSnapshots;
        return send(res, 200, { snapshot_id: newSnapshot(datasetId, recordsFor(datasetId, inputs, url.searchParams, !failed), failed) });
      }
      const progress = /^\/datasets\/v3\/progress\/([^/]+)$/.exec(url.pathname);
      if (progress && req.method === 'GET') {
        const snapshot = snapshots.get(progress[1]);
        if (!snapshot || snapshot.lost) return send(res, 404, { error: 'Snapshot not found' });
        snapshot.polls++;
        const status = snapshot.failed && snapshot.polls > 1 ? 'failed' : isReady(snapshot) ? 'ready' : snapshot.polls === 1 ? 'starting' : 'running';
        if (status === 'ready' && fake.loseReadySnapshots > 0) {
          fake.loseReadySnapshots--;
          snapshot.lost = true;
        }
        return send(res, 200, { snapshot_id: progress[1], dataset_id: snapshot.datasetId, status });
      }
      const download = /^\/datasets\/v3\/snapshot\/([^/]+)$/.exec(url.pathname);
      if (download && req.method === 'GET') {
        const snapshot = snapshots.get(download[1]);
        if (!snapshot || snapshot.lost) return send(res, 404, { error: 'Snapshot not found' });
        if (snapshot.failed || !isReady(snapshot)) {
          if (fake.interimStatus === null) return send(res, 409, { error: 'Snapshot is not ready for download' });
          return send(res, fake.interimStatus, { status: 'running', message: 'Snapshot is not ready yet, try again in 10s' });
        }
        if (snapshot.building > 0) {
          snapshot.building--;
          return send(res, fake.interimStatus ?? 200, { status: 'building', message: 'Snapshot is building, try again in 10s' });
        }
        fake.delivered.add(download[1]);
        return send(res, 200, snapshot.records);
      }
      return send(res, 404, { error: 'Not found' });
    })().catch(() => {
      if (!res.headersSent) send(res, 500, { error: 'Internal error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let outage: FakeBrightData['outage'] = null;
  const fake: FakeBrightData = {
    url: `http://127.0.0.1:${port}`,
    calls,
    billed,
    rateLimitNext(n, after = 1) {
      rateLimited = n;
      retryAfter = after;
    },
    slowSync: false,
    failSnapshots: false,
    loseReadySnapshots: 0,
    pollsUntilReady: 2,
    bodies: options.bodies ?? 'reference',
    interimStatus: null,
    buildingAfterReady: 0,
    postsShape: 'echo',
    get outage() {
      return outage;
    },
    set outage(kind) {
      const was = outage;
      outage = kind;
      if (kind === 'refuse' && was !== 'refuse') {
        // Refused connections: the port stops listening.
        server.closeAllConnections();
        server.close();
      } else if (was === 'refuse' && kind !== 'refuse') {
        server.listen(port, '127.0.0.1');
      }
      if (kind !== 'hang') {
        for (const res of hanging) res.destroy();
        hanging.clear();
      }
    },
    latencyMs: 0,
    snapshotsCreated: 0,
    snapshotIds: [],
    delivered: new Set(),
    snapshotMs: 0,
    busyIntervals: () => [
      ...calls.filter((c) => c.endedAt !== undefined).map((c): [number, number] => [c.arrivedAt, c.endedAt!]),
      ...[...snapshots.values()].filter((s) => !s.failed).map((s): [number, number] => [s.createdAt, s.createdAt + fake.snapshotMs]),
    ],
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
  return fake;
}

// Standalone mode for manual runs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const bodies = arg('--bodies');
  const fake = await startFakeBrightData({
    port: Number(arg('--port') ?? '9199'),
    apiKey: arg('--api-key'),
    imageBase: arg('--image-base'),
    bodies: bodies === 'both' ? 'both' : 'reference',
  });
  const interim = arg('--interim-status');
  if (interim === '200' || interim === '202') fake.interimStatus = Number(interim) as 200 | 202;
  const shape = arg('--posts-shape');
  if (shape === 'echo' || shape === 'discovery' || shape === 'author' || shape === 'stranger') fake.postsShape = shape;
  fake.buildingAfterReady = Number(arg('--building-after-ready') ?? fake.buildingAfterReady);
  fake.latencyMs = Number(arg('--latency-ms') ?? fake.latencyMs);
  fake.loseReadySnapshots = Number(arg('--lose-ready') ?? fake.loseReadySnapshots);
  fake.slowSync = args.includes('--slow-sync');
  console.log(fake.url);
  // An outage that keeps the snapshots (stopping the process loses them, as a provider never does): SIGUSR1 turns 503s on and off.
  process.on('SIGUSR1', () => {
    fake.outage = fake.outage === null ? '503' : null;
    console.log(fake.outage === null ? 'outage over' : 'outage: every request answers 503');
  });
  // What it billed is its only record of cost: printed when it stops, so a manual run can be compared with the service's usage counts.
  const stop = () =>
    void fake.close().then(() => {
      console.log(`billed records: ${JSON.stringify(fake.billed)}`);
      process.exit(0);
    });
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
