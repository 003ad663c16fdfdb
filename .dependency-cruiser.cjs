/**
 * The layers of src/ and the one rule between them: dependencies point down
 * (docs/architecture.md).
 *
 *   http/, web/, cli/   interfaces: the only code that knows HTTP, pages or a terminal
 *   use-cases/          one function per story, shared by every interface
 *   scanning/           queue wake-ups, worker, item handler, collectors, media
 *   store/              the only code that talks to PostgreSQL
 *   domain/             the contract's rules as plain functions and types; imports nothing of ours
 *
 * `npm test` runs `depcruise src` with this file and fails on any violation.
 */
const layer = (name) => `^src/${name}/`;
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
    upward('store', ['scanning', 'use-cases', 'http', 'web', 'cli', 'client'], 'store/ is below scanning/ and use-cases/ and knows no interface.'),
    upward('scanning', ['use-cases', 'http', 'web', 'cli', 'client'], 'scanning/ serves use-cases; it knows no interface.'),
    upward('use-cases', ['http', 'web', 'cli', 'client'], 'use-cases/ are shared by every interface: they import none of them.'),
    {
      ...upward('http', ['web', 'cli'], 'the API does not import the web pages or the CLI.'),
      // server.ts is the composition root of the HTTP app: it registers the API and the web plugin.
      from: { path: layer('http'), pathNot: '^src/http/server\\.ts$' },
    },
    upward('web', ['http/routes', 'cli'], 'the web pages call use-cases, not the API routes or the CLI.'),
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
