/**
 * `profile-scan client <command>`: a command-line client for API users, built
 * on the typed client (src/client). It talks to a running service over HTTP
 * only; it needs no database and no server configuration.
 *
 * The API key comes from PROFILE_SCAN_API_KEY or the config file
 * (~/.config/profile-scan/client.json, mode 0600, written by `login` from
 * stdin) — never from a flag, so it stays out of shell history. The base URL
 * comes from --base-url, PROFILE_SCAN_BASE_URL or the config file.
 * Arguments are parsed with node:util parseArgs; exit codes: ./client-output.ts.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ProfileScanClient, type RequestEvent } from '../index.js';
import { runContext, runCreate, runEvidence, runExport, runList, runRefresh, runSummary, runWatch } from './client-commands.js';
import { runImport } from './client-import.js';
import { runMirror } from './client-mirror.js';
import { EXIT, UsageError, output, reportFailure, type Io, type Output } from './client-output.js';
import { OPTIONS, seconds, type CommandContext, type Values } from './client-context.js';

export const CLIENT_USAGE = `usage: profile-scan client <command> [options]

commands:
  login                          read an API key from stdin, check it, save it to the config file (0600)
  context                        the key's workspace, scopes and limits
  list [--domain D] [--include-archived] [--limit N]
                                 reports, newest first
  create --name N --company C --domain D --company-url URL [--public] [--return-existing]
         [--idempotency-key K]   create a report (no people; add them with import)
  import REPORT_ID FILE.csv [--yes] [--url-column HEADER] [--idempotency-prefix P]
                                 preview, confirm, then commit people from a CSV file (the URL column found by
                                 its header: LinkedIn URL, Profile URL, URL, LinkedIn-Profil, URL du profil,
                                 URL de LinkedIn …; optional name, title, headline) in imports of at most 100 rows
  refresh REPORT_ID [--profile-id ID[,ID…]] [--idempotency-key K]
                                 scan a report's people (or those named) again (an extension beside the contract);
                                 follow with watch
  watch REPORT_ID [--scan ID]... [--interval S] [--timeout S]
                                 progress of the report's scans until every one is terminal
  summary REPORT_ID              the analysis summary as tables
  export REPORT_ID findings|activity [--format csv|jsonl] [--output FILE]
         [--profile-id ID] [--event-type T] [--from TIME] [--to TIME]
  evidence REPORT_ID --dir DIR [--variant original|preview] [--profile-id ID]
  evidence --url URL --output FILE
                                 download evidence images
  mirror REPORT_ID --dir DIR [--evidence]
                                 keep a local copy of the analysis; re-runs fetch only what changed

options (every command):
  --json             one JSON document on stdout (errors too: {"error": {...}})
  --base-url URL     service address (default: PROFILE_SCAN_BASE_URL, the config file, http://127.0.0.1:8080)
  --config FILE      config file (default: PROFILE_SCAN_CONFIG or ~/.config/profile-scan/client.json)
  --max-wait S       longest Retry-After to wait for on a 429 (default 60; 0 = fail at once)
  --verbose          log every HTTP request (method, path, status) to stderr

environment: PROFILE_SCAN_API_KEY (the key), PROFILE_SCAN_BASE_URL, PROFILE_SCAN_CONFIG
exit codes: 0 ok, 1 internal error, 2 usage error, 3 API error, 4 rate limited, 5 connection failed,
            6 import not confirmed, 7 watch timed out`;

const GLOBAL = ['json', 'base-url', 'config', 'max-wait', 'verbose', 'help'];
const COMMAND_OPTIONS: Record<string, string[]> = {
  login: [],
  context: [],
  list: ['domain', 'include-archived', 'limit'],
  create: ['name', 'company', 'domain', 'company-url', 'public', 'return-existing', 'idempotency-key'],
  import: ['yes', 'url-column', 'idempotency-prefix'],
  refresh: ['profile-id', 'idempotency-key'],
  watch: ['scan', 'interval', 'timeout'],
  summary: [],
  export: ['format', 'output', 'profile-id', 'event-type', 'from', 'to'],
  evidence: ['dir', 'variant', 'profile-id', 'url', 'output'],
  mirror: ['dir', 'evidence'],
};

interface ConfigFile {
  base_url?: string;
  api_key?: string;
}

export function configPath(io: Io, values: Values): string {
  if (values.config) return path.resolve(values.config);
  if (io.env.PROFILE_SCAN_CONFIG) return path.resolve(io.env.PROFILE_SCAN_CONFIG);
  const base = io.env.XDG_CONFIG_HOME || path.join(io.env.HOME || os.homedir(), '.config');
  return path.join(base, 'profile-scan', 'client.json');
}

async function readConfig(file: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read the config file ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the config file ${file} is not valid JSON`);
  }
  if (!parsed || typeof parsed !== 'object') throw new UsageError(`the config file ${file} must hold a JSON object`);
  const config = parsed as ConfigFile;
  if (config.api_key !== undefined) {
    // Like ssh with private keys: a key readable by others is refused, not used.
    const { mode } = await fs.stat(file);
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new UsageError(`the config file ${file} holds an API key and is accessible by other users; run: chmod 600 ${file}`);
    }
  }
  return config;
}

export async function writeConfig(file: string, config: ConfigFile): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await fs.chmod(tmp, 0o600);
  await fs.rename(tmp, file);
}

/** Reads one line (the key) from stdin: hidden when typed at a terminal, else the first line of the pipe. */
async function readSecret(io: Io, prompt: string): Promise<string> {
  const stdin = io.stdin;
  if (stdin.isTTY && stdin.setRawMode) {
    io.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    try {
      return await new Promise<string>((resolve, reject) => {
        let value = '';
        const onData = (chunk: Buffer | string) => {
          for (const ch of chunk.toString('utf8')) {
            if (ch === '\r' || ch === '\n') {
              stdin.off('data', onData);
              io.stderr.write('\n');
              return resolve(value);
            }
            if (ch === '\u0003') {
              stdin.off('data', onData);
              return reject(new UsageError('cancelled'));
            }
            if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
            else value += ch;
          }
        };
        stdin.on('data', onData);
      });
    } finally {
      stdin.setRawMode(false);
      stdin.pause();
    }
  }
  let text = '';
  for await (const chunk of stdin) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0].trim();
}

async function runLogin(
  io: Io,
  out: Output,
  values: Values,
  file: string,
  config: ConfigFile,
  baseUrl: string,
  build: (key: string) => ProfileScanClient,
): Promise<number> {
  const key = await readSecret(io, 'API key: ');
  if (!key) throw new UsageError('no key on stdin: pipe it (echo "$KEY" | profile-scan client login) or type it at the prompt');
  const context = await build(key).context();
  await writeConfig(file, { ...config, base_url: values['base-url'] ? baseUrl : (config.base_url ?? baseUrl), api_key: key });
  out.say(`Saved the key ${context.key_id} (workspace ${context.workspace_id}) and ${baseUrl} to ${file} (mode 0600).`);
  out.result({ config_file: file, base_url: baseUrl, key_id: context.key_id, workspace_id: context.workspace_id, scopes: context.scopes });
  return EXIT.ok;
}

export async function runClient(argv: string[], io: Io): Promise<number> {
  const json = argv.includes('--json');
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    const [command, ...args] = positionals;
    if (values.help || !command || command === 'help') {
      io.stdout.write(`${CLIENT_USAGE}\n`);
      return command || values.help ? EXIT.ok : EXIT.usage;
    }
    const allowed = COMMAND_OPTIONS[command];
    if (!allowed) throw new UsageError(`unknown command "${command}" (see profile-scan client --help)`);
    for (const name of Object.keys(values)) {
      if (!GLOBAL.includes(name) && !allowed.includes(name)) throw new UsageError(`option --${name} does not apply to "${command}"`);
    }

    const out = output(io, values.json === true);
    const file = configPath(io, values);
    const config = await readConfig(file);
    const baseUrl = (values['base-url'] ?? io.env.PROFILE_SCAN_BASE_URL ?? config.base_url ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
    try {
      const u = new URL(baseUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new UsageError('the base URL must be an absolute http(s) URL');
    }
    const maxWait = seconds(values['max-wait'], '--max-wait', 60, 3600);
    let requests = 0;
    const onRequest = (event: RequestEvent) => {
      requests++;
      if (values.verbose)
        io.stderr.write(
          `${event.method} ${event.path} → ${event.status ?? event.code}${event.retry_in_ms !== undefined ? ` (retry in ${event.retry_in_ms} ms)` : ''}\n`,
        );
      else if (event.code === 'rate_limited' && event.retry_in_ms !== undefined)
        out.note(`rate limited; waiting ${Math.ceil(event.retry_in_ms / 1000)} s (Retry-After)`);
    };
    const build = (apiKey: string) =>
      new ProfileScanClient({
        baseUrl,
        apiKey,
        maxRetryAfterMs: maxWait * 1000,
        requestRetries: 3,
        onRequest,
        userAgent: 'profile-scan-cli/1',
      });

    if (command === 'login') return await runLogin(io, out, values, file, config, baseUrl, build);

    const apiKey = io.env.PROFILE_SCAN_API_KEY || config.api_key;
    if (!apiKey) throw new UsageError(`no API key: set PROFILE_SCAN_API_KEY, or save one with \`profile-scan client login\` (config file ${file})`);
    const ctx: CommandContext = { io, out, values, args, client: build(apiKey), baseUrl, requests: () => requests };
    switch (command) {
      case 'context':
        return await runContext(ctx);
      case 'list':
        return await runList(ctx);
      case 'create':
        return await runCreate(ctx);
      case 'import':
        return await runImport(ctx);
      case 'refresh':
        return await runRefresh(ctx);
      case 'watch':
        return await runWatch(ctx);
      case 'summary':
        return await runSummary(ctx);
      case 'export':
        return await runExport(ctx);
      case 'evidence':
        return await runEvidence(ctx);
      case 'mirror':
        return await runMirror(ctx);
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    return reportFailure(io, json, error);
  }
}
