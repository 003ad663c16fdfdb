/** Context (2.2) and Workspace (2.3). */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, LimitValue, SingleEnvelope, StoredText, Uuid } from './common.js';

export const Limits = Type.Object(
  {
    reads_per_minute_per_key: LimitValue,
    reads_per_minute_per_workspace: LimitValue,
    page_size_max: LimitValue,
    writes_per_minute_per_key: LimitValue,
    writes_per_minute_per_workspace: LimitValue,
    submitted_profiles_per_minute_per_workspace: LimitValue,
    profiles_per_write_max: LimitValue,
  },
  { additionalProperties: false },
);

export const Context = Type.Object(
  {
    key_id: Uuid,
    user_id: Uuid,
    workspace_id: Uuid,
    scopes: Type.Array(
      Type.Union(
        ['*', 'workspace:read', 'reports:read', 'profiles:read', 'reports:create', 'profiles:add', 'analysis:read', 'imports:read'].map((s) => Type.Literal(s)),
      ),
      { maxItems: 8 },
    ),
    limits: Limits,
  },
  { additionalProperties: false },
);
export type Context = Static<typeof Context>;

export const Workspace = Type.Object(
  {
    id: Uuid,
    // Names are 1-200 characters (admin workspace create; the first run's is "Default").
    name: StoredText(200),
    // store/workspace-repository.ts slugify: lower-case letters, digits and dashes, 48 at most, and a -N suffix.
    slug: Type.String({ maxLength: 64, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
    status: Type.Literal('active'),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);
export type Workspace = Static<typeof Workspace>;

export const ContextResponse = SingleEnvelope(Context);
export const WorkspaceResponse = SingleEnvelope(Workspace);
