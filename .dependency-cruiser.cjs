/**
 * The layers of src/ and the one rule between them: dependencies point down
 * (docs/architecture.md).
 *
 *   http/, web/, cli/   interfaces: the only code that knows HTTP, pages or a terminal; they reach
 *                       the store through use-cases/ and runtime.ts only
 *   maintenance.ts      the maintenance run (a use-case of the operator's, run by serve and the CLI)
 *   use-cases/          one function per story, shared by every interface
 *   scanning/           worker, item handler, collectors, media
 *   runtime.ts,         the database a process opens; the metrics registry
 *   metrics.ts
 *   queue/              the scan queue in PostgreSQL: claim, begin, heartbeat, requeue, finish, the
 *                       roll-up deltas, their fold and the sweep (beside store/: it may use store/,
 *                       store/ never uses it)
 *   store/              with queue/, the only code that talks to PostgreSQL (the only one that imports
 *                       kysely or pg for more than their types)
 *   config.ts, clock.ts, logger.ts, data-dir.ts
 *                       settings, time, logs: below everything but domain/
 *   domain/             the contract's rules as plain functions and types; imports nothing of ours
 *
 * Every file under src/ belongs to one of them. `npm test` runs `depcruise src`
 * with this file and fails on any violation; test/unit/layer-rules.test.ts
 * plants a violation of each kind and checks that it is reported.
 */
const layer = (name) => `^src/${name}/`;
/** The modules at the root of src/, each in the layer the header names. */
const ROOT = '(config|clock|logger|data-dir|runtime|metrics|maintenance)';
const upward = (from, to, comment) => ({
  name: `no-${from}-to-${to.join('-')}`,
  comment,
  severity: 'error',
  from: { path: layer(from) },
  to: { path: `^src/(${to.join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-nothing-of-ours',
      comment: 'domain/ holds the contract as plain functions and types: it imports only itself.',
      severity: 'error',
      from: { path: layer('domain') },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'every-file-has-a-layer',
      comment: 'A file under src/ outside the layers escapes their rules: put it in one (and name it in this file).',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(domain|store|queue|scanning|use-cases|http|web|cli)/|^src/${ROOT}\\.ts$` },
      to: {},
    },
    {
      name: 'sql-only-in-store-and-queue',
      comment: 'Only store/ and queue/ talk to PostgreSQL: elsewhere kysely and pg are imported for their types, never for queries.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(store|queue)/' },
      to: { path: '(^|/)node_modules/(kysely|pg)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'foundation-imports-only-foundation',
      comment: 'config, clock, logger and data-dir sit under everything but domain/.',
      severity: 'error',
      from: { path: '^src/(config|clock|logger|data-dir)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(domain/|(config|clock|logger|data-dir)\\.ts$)' },
    },
    {
      name: 'runtime-and-metrics-above-store-only',
      comment: 'runtime.ts opens the database, metrics.ts reads the queue for its gauges: they sit right above store/.',
      severity: 'error',
      from: { path: '^src/(runtime|metrics)\\.ts$' },
      to: { path: '^src/(scanning|use-cases|http|web|cli)/|^src/maintenance\\.ts$' },
    },
    {
      name: 'maintenance-knows-no-interface',
      comment: 'The maintenance run is started by serve and by the CLI: it imports neither.',
      severity: 'error',
      from: { path: '^src/maintenance\\.ts$' },
      to: { path: '^src/(http|web|cli)/' },
    },
    {
      name: 'no-store-upward',
      comment: 'store/ is below scanning/, use-cases/ and every interface, and below the modules that run them.',
      severity: 'error',
      from: { path: layer('store') },
      to: { path: '^src/(queue|scanning|use-cases|http|web|cli)/|^src/(runtime|metrics|maintenance)\\.ts$' },
    },
    {
      name: 'no-queue-upward',
      comment: 'queue/ sits beside store/ (it may use store/): below scanning/, use-cases/, every interface and the modules that run them.',
      severity: 'error',
      from: { path: layer('queue') },
      to: { path: '^src/(scanning|use-cases|http|web|cli)/|^src/(runtime|metrics|maintenance)\\.ts$' },
    },
    {
      name: 'checks-evaluated-above-store',
      comment:
        'store/ reads and writes rows; it never evaluates the check catalog (the scan use-case does: scanning/finish-item.ts with ' +
        'domain/profile-analysis.ts).',
      severity: 'error',
      from: { path: '^src/(store|queue)/' },
      to: { path: '^src/domain/(checks/|profile-analysis\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'transactions-opened-by-use-cases',
      comment:
        'A transaction is opened by the use-case that owns the story (use-cases/), never by an interface or a scan handler. The ' +
        'exceptions are the store functions that are themselves one atomic queue or maintenance step, whatever calls them: a scan ' +
        "item's requeue, failure or archived begin (queue/transitions.ts), a fold of a report without an aggregate (queue/fold.ts), " +
        'a batch of media collection (maintenance-repository.ts) and the function definitions the migration runner applies (migrator.ts). docs/architecture.md, "One way to do each thing".',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/(use-cases/|store/(transaction|maintenance-repository|migrator)\\.ts$|queue/(transitions|fold)\\.ts$)'],
      },
      to: { path: '^src/store/transaction\\.ts$' },
    },
    {
      name: 'interfaces-reach-use-cases-only',
      comment:
        'http/, web/ and cli/ reach the store through use-cases/ (one story per function) and runtime.ts (the database and queue ' +
        'a process opens), never store/ or queue/ directly. Type-only imports are allowed: a row or handle type carries no ' +
        'behaviour, and an interface that passes a Db or prints a row needs its shape.',
      severity: 'error',
      from: { path: '^src/(http|web|cli)/' },
      to: { path: '^src/(store|queue)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-scanning-to-maintenance',
      comment: 'scanning/ does not run the maintenance (it is started beside it).',
      severity: 'error',
      from: { path: layer('scanning') },
      to: { path: '^src/maintenance\\.ts$' },
    },
    upward('scanning', ['use-cases', 'http', 'web', 'cli', 'client'], 'scanning/ serves use-cases; it knows no interface.'),
    upward('use-cases', ['http', 'web', 'cli', 'client'], 'use-cases/ are shared by every interface: they import none of them.'),
    {
      ...upward('http', ['web', 'cli'], 'the API does not import the web pages or the CLI.'),
      // server.ts is the composition root of the HTTP app: it registers the API and the web plugin.
      from: { path: layer('http'), pathNot: '^src/http/server\\.ts$' },
    },
    {
      ...upward(
        'web',
        ['http', 'cli'],
        'the web pages call use-cases, not the API or the CLI; validation sits below both (domain/schema-validation.ts). ' +
          'The one shared piece is the answer to a database outage (http/errors.ts databaseUnavailable), which the pages give too.',
      ),
      to: { path: '^src/(http|cli)/', pathNot: '^src/http/errors\\.ts$' },
    },
    {
      name: 'client-stands-alone',
      comment: 'packages/client is a package of its own: it talks to the API over HTTP only and imports nothing of the server.',
      severity: 'error',
      from: { path: '^packages/client/' },
      to: { path: '^(src|test|bench|scripts)/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one; split what they share instead.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
