/**
 * The rules the OpenAPI document is held to: Spectral's own OpenAPI rules and
 * OWASP's API Security Top 10 rules, every one of them, except those switched
 * off below, each with its reason next to it. test/api/openapi-spectral.test.ts
 * lints the served document with this file in `npm test`; the Spectral CLI reads
 * it too (`npx @stoplight/spectral-cli lint openapi.json`).
 */
import { oas } from '@stoplight/spectral-rulesets';
import owasp from '@stoplight/spectral-owasp-ruleset';
import { schema } from '@stoplight/spectral-functions';

export default {
  extends: [
    [oas, 'all'],
    [owasp, 'all'],
  ],
  rules: {
    // The API sends no CORS headers, on purpose: an API key is a secret for servers, never for a
    // page of another origin, and without Access-Control-Allow-Origin browsers refuse cross-origin
    // reads (the web workspace is same-origin). Declaring the header would document one the
    // service does not send; sending `null` would let sandboxed pages (origin "null") read.
    'owasp:api8:2023-define-cors-origin': 'off',
    // Replaced by profile-scan:rate-limit below: a 401 answers a request without a valid key,
    // which counts against no bucket, so it has no RateLimit to send.
    'owasp:api4:2023-rate-limit': 'off',
    // The contact is the operator of each deployment, whoever that is; the project publishes no email or URL for it.
    'contact-properties': 'off',

    'profile-scan:rate-limit': {
      message: 'Every 2XX and 4XX response but 401 declares RateLimit and RateLimit-Policy.',
      description: "OWASP's rate-limit rule (owasp:api4:2023-rate-limit) for every response of a counted request.",
      severity: 'error',
      given: '$.paths[*]..responses[?(@property.match(/^(2[0-9][0-9]|4(?!01)[0-9][0-9])$/))]',
      then: {
        field: 'headers',
        function: schema,
        functionOptions: { schema: { type: 'object', required: ['RateLimit', 'RateLimit-Policy'] } },
      },
    },
  },
};
