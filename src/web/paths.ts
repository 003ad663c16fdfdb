/**
 * Addresses of the web workspace's pages, in one place. `workspace_url`
 * (contract 2.4) is the report page's address.
 */
export const paths = {
  home: '/',
  signIn: '/sign-in',
  signOut: '/sign-out',
  link: (token: string) => `/links/${token}`,
  account: '/account',
  accountPassword: '/account/password',
  reports: '/reports',
  newReport: '/reports/new',
  report: (id: string) => `/reports/${id}`,
  reportProgress: (id: string) => `/reports/${id}/progress`,
  reportCsv: (id: string) => `/reports/${id}/people.csv`,
  reportXlsx: (id: string) => `/reports/${id}/people.xlsx`,
  /** POST: the people export with the private links just made (their tokens in the form). */
  reportLinksExport: (id: string) => `/reports/${id}/links/people-export`,
  reportCsvSeparator: (id: string) => `/reports/${id}/csv-separator`,
  /** Two to five groups of one imported column side by side (`?by=column&value=…`). */
  reportCompare: (id: string) => `/reports/${id}/compare`,
  reportGroupsCsv: (id: string) => `/reports/${id}/groups.csv`,
  reportCompanyName: (id: string) => `/reports/${id}/company-name`,
  reportImport: (id: string) => `/reports/${id}/import`,
  reportArchive: (id: string) => `/reports/${id}/archive`,
  reportRefresh: (id: string) => `/reports/${id}/refresh`,
  reportRefreshSchedule: (id: string) => `/reports/${id}/refresh-schedule`,
  personRefresh: (reportId: string, profileId: string) => `/reports/${reportId}/people/${profileId}/refresh`,
  reportShare: (id: string) => `/reports/${id}/share`,
  person: (reportId: string, profileId: string) => `/reports/${reportId}/people/${profileId}`,
  personRemove: (reportId: string, profileId: string) => `/reports/${reportId}/people/${profileId}/remove`,
  personErase: (reportId: string, profileId: string) => `/reports/${reportId}/people/${profileId}/erase`,
  personExport: (reportId: string, profileId: string) => `/reports/${reportId}/people/${profileId}/export.json`,
  settingsPrivacy: '/settings/privacy',
  settingsWorkspaceDelete: '/settings/privacy/delete-workspace',
  evidence: (reportId: string, imageId: string, variant?: 'preview') =>
    `/reports/${reportId}/evidence/${imageId}${variant === 'preview' ? '?variant=preview' : ''}`,
  settings: '/settings',
  settingsKeys: '/settings/keys',
  settingsKeyRevoke: (id: string) => `/settings/keys/${id}/revoke`,
  settingsInvitations: '/settings/invitations',
  settingsInvitationRevoke: (id: string) => `/settings/invitations/${id}/revoke`,
  settingsMemberRole: (id: string) => `/settings/members/${id}/role`,
  settingsMemberRemove: (id: string) => `/settings/members/${id}/remove`,
  settingsWorkspace: '/settings/workspace',
  settingsWorkspaceName: '/settings/workspace/name',
  workspaces: '/workspaces',
  workspaceSwitch: '/workspaces/switch',
  publicReport: (token: string) => `/public/reports/${token}`,
  reportLinks: (id: string) => `/reports/${id}/links`,
  reportLinkRevoke: (id: string, linkId: string) => `/reports/${id}/links/${linkId}/revoke`,
  reportLinksRevokeAll: (id: string) => `/reports/${id}/links/revoke-all`,
  /** Where private links live: the logger redacts the token after it (src/logger.ts). */
  sharedPrefix: '/shared/people',
  sharedPerson: (token: string) => `/shared/people/${token}`,
  sharedEvidence: (token: string, imageId: string, variant?: 'preview') =>
    `/shared/people/${token}/evidence/${imageId}${variant === 'preview' ? '?variant=preview' : ''}`,
  asset: (name: string) => `/assets/${name}`,
};

/**
 * Where to go after signing in: only a path of this site. Anything that a
 * browser could resolve to another origin (`//host`, `/\host`, a scheme,
 * control characters) falls back to the report list.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2048) return paths.reports;
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return paths.reports;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return paths.reports;
  try {
    const resolved = new URL(next, 'http://same.invalid');
    if (resolved.origin !== 'http://same.invalid') return paths.reports;
    return resolved.pathname + resolved.search;
  } catch {
    return paths.reports;
  }
}
