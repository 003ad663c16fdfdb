// The type of .spectral.js (the OpenAPI lint ruleset), for the test that imports it.
import type { RulesetDefinition } from '@stoplight/spectral-core';

declare const ruleset: RulesetDefinition;
export default ruleset;
