-- The statements that end an item read their outcome from the row they return (queue/finish.ts):
-- the checks that raised to undo their writes are gone, with their files in src/store/functions,
-- which the function runner only ever creates or replaces, so they are dropped here, and their
-- records with them.
drop function if exists finish_person_item_check(boolean, boolean, boolean);
drop function if exists finish_company_item_check(boolean, boolean, boolean);
delete from function_definitions where file in ('finish_person_item_check.sql', 'finish_company_item_check.sql');
