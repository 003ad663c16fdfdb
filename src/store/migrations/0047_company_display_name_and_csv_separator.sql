-- The company's name as a person reads it in advice ("Acme", not "Acme GmbH"):
-- the web's own, never part of the API's report record. Null means the
-- default, the company name without its legal form (domain/company-name.ts).
alter table reports add column display_company_name text
  check (display_company_name is null or char_length(display_company_name) between 1 and 200);

-- The separator a user's people CSV exports use: a comma with decimal points,
-- or a semicolon with decimal commas (what Excel expects in German or French).
alter table users add column csv_separator text not null default 'comma'
  check (csv_separator in ('comma', 'semicolon'));
