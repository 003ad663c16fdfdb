/**
 * Entry of `profile-scan client …` (bin/profile-scan.js routes here): loads
 * only the API client, not the server, so the command starts fast.
 */
import { runClient } from './client.js';

process.exitCode = await runClient(process.argv.slice(3), process);
