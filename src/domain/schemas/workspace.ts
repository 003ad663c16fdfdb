/** Context (2.2) and Workspace (2.3). */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, SingleEnvelope, Uuid } from './common.js';

export const Limits = Type.Object(
  {
    reads_per_minute_per_key: Type.Integer(),
    reads_per_minute_per_workspace: Type.Integer(),
    page_size_max: Type.Integer(),
    writes_per_minute_per_key: Type.Integer(),
    writes_per_minute_per_workspace: Type.Integer(),
    submitted_profiles_per_minute_per_workspace: Type.Integer(),
    profiles_per_write_max: Type.Integer(),
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
    ),
    limits: Limits,
  },
  { additionalProperties: false },
);
export type Context = Static<typeof Context>;

export const Workspace = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    status: Type.Literal('active'),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);
export type Workspace = Static<typeof Workspace>;

export const ContextResponse = SingleEnvelope(Context);
export const WorkspaceResponse = SingleEnvelope(Workspace);
