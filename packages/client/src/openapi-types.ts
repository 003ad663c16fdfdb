/**
 * Types of the profile-scan API v1, generated from its OpenAPI document by
 * openapi-typescript (scripts/gen-client-types.ts). Do not edit by hand:
 * run `npm run gen:client-types` after changing a route or schema.
 */

export interface paths {
    "/api/v1/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling key, its workspace, scopes and effective limits
         * @description The calling key: its id, user, workspace, scopes and the effective limits of its workspace (2.2). A key cannot switch workspace.
         *
         *     Scopes: `workspace:read`.
         */
        get: operations["getContext"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workspace": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace of the calling key
         * @description The workspace the calling key is bound to (2.3).
         *
         *     Scopes: `workspace:read`.
         */
        get: operations["getWorkspace"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List reports, newest first
         * @description Reports of the workspace, newest first (4.3). Archived reports are excluded unless `include_archived=true`.
         *
         *     Scopes: `reports:read`.
         */
        get: operations["listReports"];
        put?: never;
        /**
         * Create a report (idempotent; Idempotency-Key required)
         * @description Creates a report and attaches up to 100 people; admitted people get a `full_profile` and an `activity` scan queued (4.4). All rows are validated before anything changes; duplicates in the body keep the first occurrence; no external lookup happens. With `on_existing: return_existing`, reports of the same company root domain (all states) are returned with 200 and outcome `existing`; nothing is created. Idempotent: retry an uncertain result with the same body and Idempotency-Key; a replay returns the original status and data with `Idempotency-Replayed: true`.
         *
         *     Scopes: `reports:create`, `reports:read`, plus `profiles:add` when `profiles` is not empty.
         */
        post: operations["createReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a report
         * @description One report (2.4, 4.5).
         *
         *     Scopes: `reports:read`.
         */
        get: operations["getReport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The report's active roster, newest first
         * @description The report's roster: active attachments only, newest first (2.5, 4.6).
         *
         *     Scopes: `profiles:read`.
         */
        get: operations["listReportProfiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/scans/{scan_run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one scan run (does not start a scan)
         * @description One scan run and its counts (2.6, 4.7). Reading never starts a scan. Poll with slowing intervals and honour `Retry-After`.
         *
         *     Scopes: `reports:read`.
         */
        get: operations["getScan"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/profile-imports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import people into a report (preview with validation_only=true)
         * @description Imports 1-100 people into a report (4.8). The whole batch is validated first. With `validation_only=true` it returns a preview (200) and changes nothing (no roster change, receipt or scan), but counts against request admission. A commit returns the receipt (201) with `Location`; added and restored people get both scans queued. Archived reports are 409 `report_archived`. The Idempotency-Key (required for commits) is scoped to workspace, operation and report; the same body replays the receipt for 30 days with `Idempotency-Replayed: true`.
         *
         *     Scopes: `reports:read`, `profiles:add`.
         */
        post: operations["createProfileImport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/profile-imports/{import_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a saved import receipt
         * @description A saved import receipt (4.9): immutable contents, not live scan status. 410 after 30 days.
         *
         *     Scopes: `imports:read`.
         */
        get: operations["getProfileImport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/refreshes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Scan a report's people again (extension)
         * @description Extension: scans a report's people again. Queues a `full_profile` and an `activity` scan for every active person (or the `profile_ids` named) and the company page, as an import admits them: joined to still-queued runs, people already pending are coalesced and cost nothing, the others are charged to the scan allowance. The roster and the stored results do not change; until the scans finish the summary stays readable, freshness `stale` with the reason `refresh_in_progress`. Idempotent like the contract's writes: the Idempotency-Key is scoped to workspace, operation and report; the same body replays the first answer with `Idempotency-Replayed: true`. Counts against the write limits.
         *
         *     Scopes: `reports:read`, `profiles:add`.
         */
        post: operations["createRefresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/evidence/{image_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an evidence image (the url of a findings evidence.images[] entry)
         * @description Downloads an evidence image: use the `url` (or `preview_url`) of a findings `evidence.images[]` entry with the bearer header, from a trusted server (4.12). JPEG, PNG or WebP, up to 10 MiB. Access and key status are rechecked on every download.
         *
         *     Scopes: `reports:read`, `analysis:read`, `profiles:read`.
         */
        get: operations["downloadEvidence"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/analysis": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Analysis summary: readiness, coverage, work, freshness, optimization totals, revisions
         * @description The stored analysis summary (2.9, 4.10): availability, coverage, work state, freshness, optimization totals and the revisions used for reconciliation (4.13). Reads stored data only; a report without results is 200 with empty values.
         *
         *     Scopes: `reports:read`, `analysis:read`.
         */
        get: operations["getAnalysisSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/analysis/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Per-person findings, one record per active attachment, in a stable order
         * @description Per-person findings, one record per active attachment, ordered by `profile_id` (2.9, 4.11). Unanalyzed people are present with `analysis: null` and a `reason`. Follow the top-level `next_cursor` until null; a changed revision during the traversal is 409 `results_changed`.
         *
         *     Scopes: `reports:read`, `analysis:read`, `profiles:read`.
         */
        get: operations["listAnalysisProfiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reports/{report_id}/analysis/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stored activity events, ordered by id
         * @description Stored activity events (posts, reposts, comments, reactions), ordered by id (2.9, 4.11a). An empty page does not prove that no activity exists: see the summary coverage and limitations.
         *
         *     Scopes: `reports:read`, `analysis:read`, `profiles:read`.
         */
        get: operations["listAnalysisActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            error: {
                code: string;
                message: string;
                retryable?: boolean;
                next_action?: string;
                details?: {
                    /** Format: int32 */
                    row_number?: number;
                    field: string;
                    code: string;
                }[];
            };
            /** Format: uuid */
            request_id: string;
        };
        Context: {
            /** Format: uuid */
            key_id: string;
            /** Format: uuid */
            user_id: string;
            /** Format: uuid */
            workspace_id: string;
            scopes: ("*" | "workspace:read" | "reports:read" | "profiles:read" | "reports:create" | "profiles:add" | "analysis:read" | "imports:read")[];
            limits: components["schemas"]["Limits"];
        };
        Limits: {
            /** Format: int32 */
            reads_per_minute_per_key: number;
            /** Format: int32 */
            reads_per_minute_per_workspace: number;
            /** Format: int32 */
            page_size_max: number;
            /** Format: int32 */
            writes_per_minute_per_key: number;
            /** Format: int32 */
            writes_per_minute_per_workspace: number;
            /** Format: int32 */
            submitted_profiles_per_minute_per_workspace: number;
            /** Format: int32 */
            profiles_per_write_max: number;
        };
        Workspace: {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            /** @constant */
            status: "active";
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Report: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspace_id: string;
            name: string;
            company: {
                name: string;
                supplied_domain: string;
                root_domain: string | null;
                /** Format: uri */
                pronet_company_url: string;
            };
            /** @enum {string} */
            visibility: "private" | "public";
            archived: boolean;
            /** @enum {string} */
            analysis_state: "not_requested" | "queued" | "running" | "available" | "failed";
            /** Format: int64 */
            profile_count: number;
            /** Format: int64 */
            analyzed_profile_count: number;
            public_url: string | null;
            /** Format: uri */
            workspace_url: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        Profile: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            report_id: string;
            /** Format: uri */
            pronet_url: string;
            name: string | null;
            title: string | null;
            headline: string | null;
            /** @enum {string} */
            source: "urls" | "finder" | "ops" | "migration" | "api_import";
            analysis_available: boolean;
            /** Format: date-time */
            added_at: string;
        };
        Scan: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            report_id: string;
            /** @enum {string} */
            mode: "full_profile" | "activity";
            /** @enum {string} */
            status: "queued" | "running" | "completed" | "partial" | "failed" | "inaccessible" | "cancelled";
            counts: {
                /** Format: int64 */
                requested: number;
                /** Format: int64 */
                completed: number;
                /** Format: int64 */
                warnings: number;
                /** Format: int64 */
                failed: number;
            };
            /** Format: date-time */
            created_at: string;
            started_at: string | null;
            completed_at: string | null;
            terminal_reason: ("failed" | "inaccessible" | "cancelled") | null;
        };
        CreateReport: {
            company: {
                name: string;
                domain: string;
                /** Format: uri */
                pronet_company_url: string;
            };
            name: string;
            /**
             * @default private
             * @enum {string}
             */
            visibility?: "private" | "public";
            /**
             * @default create
             * @enum {string}
             */
            on_existing?: "create" | "return_existing";
            /** @default [] */
            profiles?: components["schemas"]["CreateProfile"][];
        };
        CreateProfile: {
            pronet_url: string;
            name?: string;
            title?: string;
            headline?: string;
        };
        CreatedReport: {
            /** @constant */
            outcome: "created";
            report: components["schemas"]["Report"];
            scan_requests: components["schemas"]["CreationScan"][];
            profiles: {
                /** Format: int64 */
                submitted: number;
                /** Format: int64 */
                added: number;
                /** Format: int64 */
                duplicate_in_input: number;
                rows: components["schemas"]["CreationRow"][];
            };
        };
        CreationScan: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            mode: "full_profile" | "activity";
            /** @constant */
            status: "queued";
            /** Format: int64 */
            person_count: number;
            /** Format: int64 */
            company_page_count: number;
        };
        CreationRow: {
            /** Format: int32 */
            row_number: number;
            /** @constant */
            status: "added";
            /** Format: uuid */
            profile_id: string;
        } | {
            /** Format: int32 */
            row_number: number;
            /** @constant */
            status: "duplicate_in_input";
            /** Format: int32 */
            first_row_number: number;
        };
        ExistingReports: {
            /** @constant */
            outcome: "existing";
            existing_reports: components["schemas"]["Report"][];
            next_cursor: string | null;
        };
        ProfileImport: {
            profiles: components["schemas"]["CreateProfile"][];
        };
        ImportValidation: {
            /** @constant */
            validation_only: true;
            /** @constant */
            valid: true;
            counts: {
                /** Format: int64 */
                submitted: number;
                /** Format: int64 */
                would_add: number;
                /** Format: int64 */
                would_restore: number;
                /** Format: int64 */
                already_present: number;
                /** Format: int64 */
                duplicate_in_input: number;
                /** Format: int64 */
                would_queue_profiles: number;
            };
            rows: components["schemas"]["ImportPreviewRow"][];
        };
        ImportPreviewRow: {
            /** Format: int32 */
            row_number: number;
            /** @enum {string} */
            status: "would_add" | "would_restore" | "already_present" | "duplicate_in_input";
            /** Format: int32 */
            duplicate_of_row?: number;
            notes?: {
                /** @constant */
                code: "previously_removed_profile_restored";
                message: string;
            }[];
        };
        ImportReceipt: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            report_id: string;
            /** @constant */
            state: "completed";
            counts: {
                /** Format: int64 */
                submitted: number;
                /** Format: int64 */
                added: number;
                /** Format: int64 */
                restored: number;
                /** Format: int64 */
                already_present: number;
                /** Format: int64 */
                duplicate_in_input: number;
                /** Format: int64 */
                profiles_queued: number;
            };
            rows: components["schemas"]["ImportRow"][];
            scan_requests: components["schemas"]["ImportScan"][];
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
        };
        RefreshBody: {
            profile_ids?: string[];
        };
        RefreshReceipt: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            report_id: string;
            /** Format: int64 */
            people_requested: number;
            /** Format: int64 */
            people_queued: number;
            scan_requests: {
                /** Format: uuid */
                scan_run_id: string;
                /** @enum {string} */
                mode: "full_profile" | "activity";
                /** Format: int64 */
                jobs_created: number;
                /** Format: int64 */
                jobs_coalesced: number;
            }[];
            /** Format: date-time */
            created_at: string;
        };
        ImportRow: {
            /** Format: int32 */
            row_number: number;
            /** @enum {string} */
            status: "added" | "restored" | "already_present" | "duplicate_in_input";
            /** Format: int32 */
            duplicate_of_row?: number;
            notes?: {
                /** @constant */
                code: "previously_removed_profile_restored";
                message: string;
            }[];
            /** Format: uuid */
            profile_id?: string;
            scan_requests?: {
                /** Format: uuid */
                scan_run_id: string;
                /** @enum {string} */
                mode: "full_profile" | "activity";
            }[];
        };
        ImportScan: {
            /** Format: uuid */
            scan_run_id: string;
            /** @enum {string} */
            mode: "full_profile" | "activity";
            /** @enum {string} */
            status_at_commit: "queued" | "running" | "completed" | "partial" | "failed" | "cancelled";
            /** Format: int64 */
            jobs_created: number;
            /** Format: int64 */
            jobs_coalesced: number;
        };
        AnalysisSummary: {
            report: {
                /** Format: uuid */
                id: string;
                name: string;
                archived: boolean;
                company: {
                    name: string;
                    domain: string;
                    /** Format: uri */
                    pronet_url: string;
                    observed_context: {
                        name: string | null;
                        tagline: string | null;
                        industry: string | null;
                        follower_count: number | null;
                        website: string | null;
                        /** Format: date-time */
                        captured_at: string;
                    } | null;
                };
            };
            links: {
                /** Format: uri */
                workspace_url: string;
                public_url: string | null;
            };
            /** @enum {string} */
            availability: "none" | "partial" | "available";
            has_usable_results: boolean;
            coverage: {
                /** Format: int64 */
                person_profiles: number;
                optimization: {
                    /** Format: int64 */
                    analyzed_profiles: number;
                    /** Format: int64 */
                    answered_checks: number;
                    /** Format: int64 */
                    unknown_checks: number;
                    /** Format: int64 */
                    profiles_without_usable_analysis: number;
                };
                activity: {
                    /** Format: int64 */
                    observed_person_profiles: number;
                    company_page_observed: boolean;
                    /** Format: int64 */
                    incomplete_person_profiles: number;
                };
            };
            work: {
                /** @enum {string} */
                state: "not_requested" | "queued" | "processing" | "completed" | "completed_with_issues" | "failed" | "unknown";
                all_requested_work_terminal: boolean;
                all_requested_work_succeeded: boolean;
                counts: {
                    /** Format: int64 */
                    requested: number;
                    /** Format: int64 */
                    queued: number;
                    /** Format: int64 */
                    processing: number;
                    /** Format: int64 */
                    succeeded: number;
                    /** Format: int64 */
                    failed: number;
                    /** Format: int64 */
                    inaccessible: number;
                    /** Format: int64 */
                    cancelled: number;
                    /** Format: int64 */
                    warnings: number;
                };
                scan_run_ids: string[];
            };
            freshness: {
                /** @enum {string} */
                state: "current" | "stale" | "unknown";
                reasons: string[];
                oldest_captured_at: string | null;
                newest_captured_at: string | null;
            };
            /** Format: date-time */
            evaluated_at: string;
            results_revision: string;
            work_revision: string;
            collections: {
                profiles_revision: string;
                activity_revision: string;
            };
            optimization_summary: {
                /** @constant */
                method: "existing_profile_check_aggregation";
                /** Format: int64 */
                cohort_profile_count: number;
                counts: {
                    /** Format: int64 */
                    good: number;
                    /** Format: int64 */
                    optimize: number;
                    /** Format: int64 */
                    answered: number;
                    /** Format: int64 */
                    unknown: number;
                    score_pct: number | null;
                };
                categories: {
                    /** Format: uuid */
                    id: string;
                    key: string;
                    /** Format: int64 */
                    good: number;
                    /** Format: int64 */
                    optimize: number;
                    /** Format: int64 */
                    answered: number;
                    score_pct: number | null;
                    revision: string;
                }[];
                checks: {
                    /** Format: uuid */
                    id: string;
                    key: string;
                    /** Format: int64 */
                    good: number;
                    /** Format: int64 */
                    optimize: number;
                    /** Format: int64 */
                    answered: number;
                    score_pct: number | null;
                    revision: string;
                }[];
            };
            limitations: {
                code: string;
                message: string;
            }[];
        };
        FindingsRecord: {
            /** Format: uuid */
            profile_id: string;
            /** Format: uri */
            pronet_url: string;
            name: string | null;
            title: string | null;
            headline: string | null;
            revision: string;
            analysis: {
                catalog_version: string;
                /** Format: date-time */
                captured_at: string;
                /** Format: date-time */
                available_at: string;
                counts: {
                    /** Format: int64 */
                    good: number;
                    /** Format: int64 */
                    optimize: number;
                    /** Format: int64 */
                    unknown: number;
                    /** Format: int64 */
                    answered: number;
                    score_pct: number | null;
                };
                checks: {
                    /** Format: uuid */
                    id: string;
                    key: string;
                    title: string;
                    category: {
                        id: string | null;
                        key: string;
                    };
                    /** @enum {string} */
                    outcome: "good" | "optimize" | "unknown";
                    observed_value: (string | number | boolean) | null;
                    recommendation: string | null;
                    /** Format: uri */
                    source_url: string;
                    evidence: {
                        images: {
                            /** Format: uri */
                            url: string;
                            /** Format: uri */
                            preview_url: string;
                        }[];
                    };
                }[];
            } | null;
            reason: string | null;
        };
        ActivityEvent: {
            /** Format: uuid */
            id: string;
            profile_id: string | null;
            /** @enum {string} */
            event_type: "post" | "repost" | "comment" | "reaction" | "unknown";
            actor: {
                /** @enum {string} */
                kind: "person" | "company_page";
                url: string;
                name: string | null;
            };
            source_url: string | null;
            text: string | null;
            occurred_at: string | null;
            counts: {
                reactions: number | null;
                comments: number | null;
                reposts: number | null;
            };
            /** @enum {string} */
            provenance: "scanner" | "legacy" | "unknown";
            captured_at: string | null;
            available_at: string | null;
            updated_at: string | null;
            revision: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /**
         * @description Equals `request_id` of the body.
         * @example 1f2e3d4c-5b6a-4978-8a9b-0c1d2e3f4a5b
         */
        XRequestId: string;
        /** @description Always `no-store`. */
        CacheControl: "no-store";
        /**
         * @description The tightest bucket this request counted against: policy name, remaining requests `r` and seconds `t` until the window ends. Sent on every answer to a request with a valid key, errors included (but a 403 `api_access_disabled`).
         * @example "reads-per-key";r=59;t=42
         */
        RateLimit: string;
        /**
         * @description Every bucket this request counted against, with its quota `q` per window `w` (seconds). Sent with `RateLimit`.
         * @example "reads-per-key";q=60;w=60, "reads-per-workspace";q=300;w=60
         */
        RateLimitPolicy: string;
        /**
         * @description Whole seconds (at least 1) until the current UTC minute window ends.
         * @example 17
         */
        RetryAfter: number;
        /** @description Absolute URI of the created resource. */
        Location: string;
        /** @description `true` when this is a replay of a saved result for the same Idempotency-Key and body (4.4 rule 8, 4.8 rule 4). */
        IdempotencyReplayed: "true";
        /**
         * @description `Bearer`.
         * @example Bearer
         */
        WwwAuthenticate: "Bearer";
        /** @description Size of the image in bytes (at most 10 MiB). */
        ContentLength: number;
        /**
         * @description The workspace's scan allowance: profile scans per calendar month (UTC), or `unlimited` (docs/operations.md, "Scan allowance").
         * @example 500
         */
        ScanAllowanceLimit: string;
        /**
         * @description Profile scans admitted this month.
         * @example 120
         */
        ScanAllowanceUsed: string;
        /**
         * @description Profile scans left this month, or `unlimited`. A commit queues at most `would_queue_profiles` of them.
         * @example 380
         */
        ScanAllowanceRemaining: string;
        /**
         * @description When the month ends and the count starts again (RFC 3339, UTC).
         * @example 2026-12-01T00:00:00.000Z
         */
        ScanAllowanceReset: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getContext: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key context. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Context"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The workspace. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Workspace"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listReports: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1-100 (default 50).
                 * @example 50
                 */
                limit?: number;
                /** @description Opaque cursor from `page.next_cursor` of the previous page of reports. Pass it unchanged with the same endpoint, filters and limit; an invalid or changed binding is 400 `invalid_cursor`. Stop when `page.next_cursor` is null. */
                cursor?: string;
                /**
                 * @description Hostname or http(s) company URL; normalized to its registrable domain (public and private suffix rules); matches that root domain and its subdomains.
                 * @example acme.co.uk
                 */
                company_root_domain?: string;
                /**
                 * @description Include archived reports (default false).
                 * @example true
                 */
                include_archived?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of reports. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Report"][];
                        page: {
                            next_cursor: string | null;
                        };
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createReport: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Required. One key per intended write; reuse it only to retry that same request (same body). 1-128 characters from letters, digits, `.`, `_`, `:`, `-`.
                 * @example import-2026-03-02-a
                 */
                "Idempotency-Key": string;
            };
            path?: never;
            cookie?: never;
        };
        /** @description JSON only (`Content-Type: application/json`), at most 1 MiB; unknown fields are rejected. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateReport"];
            };
        };
        responses: {
            /** @description `on_existing: return_existing` matched: up to 100 existing reports (continue with GET /reports, `company_root_domain` and `include_archived=true`). */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotency-Replayed": components["headers"]["IdempotencyReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedReport"] | components["schemas"]["ExistingReports"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Created: report, queued scans and one row per submitted person. `Location` is the report. */
            201: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    Location: components["headers"]["Location"];
                    "Idempotency-Replayed": components["headers"]["IdempotencyReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedReport"] | components["schemas"]["ExistingReports"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The people would exceed the workspace's scan allowance this month (`scan_allowance_exceeded`, not retryable until the allowance is raised or the month ends; nothing was saved; the `Scan-Allowance-*` headers say what is left), the Idempotency-Key was used with a different body (`idempotency_key_reused`), or its first request is still running (`idempotency_request_in_progress`, retryable). */
            409: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Scan-Allowance-Limit": components["headers"]["ScanAllowanceLimit"];
                    "Scan-Allowance-Used": components["headers"]["ScanAllowanceUsed"];
                    "Scan-Allowance-Remaining": components["headers"]["ScanAllowanceRemaining"];
                    "Scan-Allowance-Reset": components["headers"]["ScanAllowanceReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body exceeds 1 MiB (`payload_too_large`). */
            413: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`). */
            415: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is invalid (`validation_failed`); `details` name the rows and fields, never the values. Nothing was changed. */
            422: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getReport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Report"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listReportProfiles: {
        parameters: {
            query?: {
                /**
                 * @description Page size, 1-100 (default 50).
                 * @example 50
                 */
                limit?: number;
                /** @description Opaque cursor from `page.next_cursor` of the previous page of the roster. Pass it unchanged with the same endpoint, filters and limit; an invalid or changed binding is 400 `invalid_cursor`. Stop when `page.next_cursor` is null. */
                cursor?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the roster. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Profile"][];
                        page: {
                            next_cursor: string | null;
                        };
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getScan: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
                /**
                 * @description The scan run (uuid), from `scan_requests` of a creation or import.
                 * @example 3c2b1a0f-9e8d-4c7b-a6f5-e4d3c2b1a0f9
                 */
                scan_run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scan run. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Scan"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createProfileImport: {
        parameters: {
            query?: {
                /**
                 * @description Preview only (default false): nothing is changed and no Idempotency-Key is needed.
                 * @example true
                 */
                validation_only?: boolean;
            };
            header?: {
                /**
                 * @description Required for commits, ignored with `validation_only=true`. One key per intended commit; reuse it only to recover that request. 1-128 characters from letters, digits, `.`, `_`, `:`, `-`.
                 * @example import-2026-03-02-a
                 */
                "Idempotency-Key"?: string;
            };
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        /** @description JSON only (`Content-Type: application/json`), at most 1 MiB; unknown fields are rejected. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProfileImport"];
            };
        };
        responses: {
            /** @description Preview (`validation_only=true`). The commit would use at most `would_queue_profiles` profile scans of the workspace's allowance; the `Scan-Allowance-*` headers say what is left this month. A preview reserves nothing. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotency-Replayed": components["headers"]["IdempotencyReplayed"];
                    "Scan-Allowance-Limit": components["headers"]["ScanAllowanceLimit"];
                    "Scan-Allowance-Used": components["headers"]["ScanAllowanceUsed"];
                    "Scan-Allowance-Remaining": components["headers"]["ScanAllowanceRemaining"];
                    "Scan-Allowance-Reset": components["headers"]["ScanAllowanceReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ImportValidation"] | components["schemas"]["ImportReceipt"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Committed (or replayed) receipt. `Location` is the saved receipt. */
            201: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    Location: components["headers"]["Location"];
                    "Idempotency-Replayed": components["headers"]["IdempotencyReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ImportValidation"] | components["schemas"]["ImportReceipt"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The report is archived (`report_archived`), the people would exceed the workspace's scan allowance this month (`scan_allowance_exceeded`, not retryable until the allowance is raised or the month ends; nothing was saved; the `Scan-Allowance-*` headers say what is left), the Idempotency-Key was used with a different body (`idempotency_key_reused`), or its first request still runs (`idempotency_request_in_progress`, retryable). */
            409: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Scan-Allowance-Limit": components["headers"]["ScanAllowanceLimit"];
                    "Scan-Allowance-Used": components["headers"]["ScanAllowanceUsed"];
                    "Scan-Allowance-Remaining": components["headers"]["ScanAllowanceRemaining"];
                    "Scan-Allowance-Reset": components["headers"]["ScanAllowanceReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body exceeds 1 MiB (`payload_too_large`). */
            413: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`). */
            415: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rows are invalid (`import_validation_failed`, not retryable); `details` name row numbers, fields and codes, never the values. Nothing was changed. */
            422: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProfileImport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
                /**
                 * @description The import receipt (uuid).
                 * @example 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
                 */
                import_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The receipt. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ImportReceipt"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The saved import receipt is older than 30 days (`receipt_expired`). */
            410: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRefresh: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Required. One key per intended write; reuse it only to retry that same request (same body). 1-128 characters from letters, digits, `.`, `_`, `:`, `-`.
                 * @example import-2026-03-02-a
                 */
                "Idempotency-Key": string;
            };
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        /** @description JSON only (`Content-Type: application/json`), at most 1 MiB; unknown fields are rejected. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["RefreshBody"];
            };
        };
        responses: {
            /** @description Queued (or replayed): the people asked for, those queued, and the scan runs joined or created. */
            201: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Idempotency-Replayed": components["headers"]["IdempotencyReplayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RefreshReceipt"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The report is archived (`report_archived`), the people would exceed the workspace's scan allowance this month (`scan_allowance_exceeded`; nothing was queued), or the Idempotency-Key was used with a different body (`idempotency_key_reused`) or is still running (`idempotency_request_in_progress`, retryable). */
            409: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Scan-Allowance-Limit": components["headers"]["ScanAllowanceLimit"];
                    "Scan-Allowance-Used": components["headers"]["ScanAllowanceUsed"];
                    "Scan-Allowance-Remaining": components["headers"]["ScanAllowanceRemaining"];
                    "Scan-Allowance-Reset": components["headers"]["ScanAllowanceReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body exceeds 1 MiB (`payload_too_large`). */
            413: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`). */
            415: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is invalid, names someone who is not an active person of the report, or the report has nobody to scan (`validation_failed`). Nothing was queued. */
            422: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadEvidence: {
        parameters: {
            query?: {
                /**
                 * @description `original` (default) or `preview`.
                 * @example preview
                 */
                variant?: "original" | "preview";
            };
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
                /**
                 * @description The evidence image (uuid), as found in the image url.
                 * @example b1a2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d
                 */
                image_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The image bytes (JPEG, PNG or WebP). */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Content-Length": components["headers"]["ContentLength"];
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                    "image/png": string;
                    "image/webp": string;
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A foreign, removed or obsolete reference (`not_found`), or media that is missing or changed (`evidence_unavailable`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAnalysisSummary: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The summary. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AnalysisSummary"];
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAnalysisProfiles: {
        parameters: {
            query?: {
                /**
                 * @description Records per page, 1-25 (default 10). Pages may hold fewer records to stay under 2 MiB.
                 * @example 25
                 */
                limit?: number;
                /** @description Opaque cursor from the top-level `next_cursor` of the previous page. Expires after 15 minutes (400 `cursor_expired`); bound to report, workspace, route, filters, limit and revision. Send the same `limit`, filters and `expected_revision` on every page. */
                cursor?: string;
                /**
                 * @description The collection revision from the summary (`collections.profiles_revision` / `collections.activity_revision`). When the collection no longer has this revision the request is 409 `results_changed`: discard staged pages and restart (4.13).
                 * @example r3f0123456789abcdef01234
                 */
                expected_revision?: string;
                /**
                 * @description Only this attachment (404 when it is not an active attachment of the report).
                 * @example 5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a
                 */
                profile_id?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of findings. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["FindingsRecord"][];
                        revision: string;
                        next_cursor: string | null;
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The collection changed during the traversal, or `expected_revision` is stale (`results_changed`, retryable): discard staged pages, re-read the summary and restart with bounded backoff (4.13 rule 5). */
            409: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description One stored record exceeds the 2 MiB response budget (`result_too_large`); lowering the page limit does not help. */
            422: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAnalysisActivity: {
        parameters: {
            query?: {
                /**
                 * @description Events per page, 1-100 (default 25).
                 * @example 100
                 */
                limit?: number;
                /** @description Opaque cursor from the top-level `next_cursor` of the previous page. Expires after 15 minutes (400 `cursor_expired`); bound to report, workspace, route, filters, limit and revision. Send the same `limit`, filters and `expected_revision` on every page. */
                cursor?: string;
                /**
                 * @description The collection revision from the summary (`collections.profiles_revision` / `collections.activity_revision`). When the collection no longer has this revision the request is 409 `results_changed`: discard staged pages and restart (4.13).
                 * @example r3f0123456789abcdef01234
                 */
                expected_revision?: string;
                /**
                 * @description Only this attachment's events.
                 * @example 5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a
                 */
                profile_id?: string;
                /**
                 * @description Only events of this type.
                 * @example post
                 */
                event_type?: "post" | "repost" | "comment" | "reaction" | "unknown";
                /**
                 * @description RFC 3339 with offset, inclusive. With a date filter, events of unknown date are excluded.
                 * @example 2026-02-01T00:00:00Z
                 */
                occurred_from?: string;
                /**
                 * @description RFC 3339 with offset, exclusive.
                 * @example 2026-03-01T00:00:00Z
                 */
                occurred_to?: string;
            };
            header?: never;
            path: {
                /**
                 * @description The report (uuid).
                 * @example 0b8e5f7a-3c2d-4e1f-9a8b-7c6d5e4f3a2b
                 */
                report_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of events. */
            200: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ActivityEvent"][];
                        revision: string;
                        next_cursor: string | null;
                        /** Format: uuid */
                        request_id: string;
                    };
                };
            };
            /** @description Invalid request: a malformed parameter or body (`invalid_request`), an invalid or changed cursor binding (`invalid_cursor`), an expired analysis cursor (`cursor_expired`), a missing or malformed Idempotency-Key (`idempotency_key_invalid`). */
            400: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing, invalid or revoked key (`unauthorized`). */
            401: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks a scope (`insufficient_scope`), or API access is disabled for the workspace (`api_access_disabled`). */
            403: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown resource, or one in another workspace (`not_found`). */
            404: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The collection changed during the traversal, or `expected_revision` is stale (`results_changed`, retryable): discard staged pages, re-read the summary and restart with bounded backoff (4.13 rule 5). */
            409: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description One stored record exceeds the 2 MiB response budget (`result_too_large`); lowering the page limit does not help. */
            422: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Rate limit exceeded (`rate_limited`); wait `Retry-After` seconds. */
            429: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Server failure (`internal_error`); retry with bounded backoff. */
            500: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Service unavailable (`unavailable`), e.g. shutting down; retry with bounded backoff. */
            503: {
                headers: {
                    "X-Request-ID": components["headers"]["XRequestId"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    RateLimit: components["headers"]["RateLimit"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
