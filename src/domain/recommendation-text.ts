/**
 * Stored recommendations are generic guidance that may contain the company
 * placeholders `[company name]` or `{company}` (contract 2.9); shown to a
 * person, they name the report's company.
 */
export function fillCompanyPlaceholders(text: string, companyName: string): string {
  return text.replace(/\[company name\]|\{company\}/gi, () => companyName);
}
