/**
 * The company's name in advice (src/domain/company-name.ts): the company name
 * without its legal form, unless a lead chose another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { companyDisplayName, reportCompanyDisplayName } from '../../src/domain/company-name.js';

test('a trailing legal form is dropped, whatever its dots, case or the comma before it', () => {
  const cases: [string, string][] = [
    ['Acme GmbH', 'Acme'],
    ['Widgets, Inc.', 'Widgets'],
    ['Widgets Inc', 'Widgets'],
    ['Foo Ltd.', 'Foo'],
    ['Banco Ejemplo S.A.', 'Banco Ejemplo'],
    ['Société Exemple SARL', 'Société Exemple'],
    ['Muster AG', 'Muster'],
    ['Example LLC', 'Example'],
    ['Example plc', 'Example'],
    ['Example PLC', 'Example'],
    ['Müller Holding GmbH & Co. KG', 'Müller Holding'],
    ['Data Pty Ltd', 'Data'],
  ];
  for (const [name, expected] of cases) assert.equal(companyDisplayName(name), expected, name);
});

test('a name without a legal form, or one that is only a legal form, is kept', () => {
  assert.equal(companyDisplayName('Acme'), 'Acme');
  assert.equal(companyDisplayName('  Agile Ventures  '), 'Agile Ventures');
  assert.equal(companyDisplayName('GmbH'), 'GmbH');
  assert.equal(companyDisplayName('Incognito Labs'), 'Incognito Labs', 'a word that starts like a legal form is not one');
});

test("a lead's chosen name wins over the derived one", () => {
  assert.equal(reportCompanyDisplayName({ company_name: 'Acme GmbH', display_company_name: null }), 'Acme');
  assert.equal(reportCompanyDisplayName({ company_name: 'Acme GmbH', display_company_name: 'ACME Robotics' }), 'ACME Robotics');
});
