-- Invitations by keyed hash (projections/organizations): a row of an invitation recorded by the hash
-- of its address (organization.member_invited email_hash) holds the hash in email_hash and in email
-- (the key), and the address sealed for the invitee subject in sealed_email (JSON); '' on rows of
-- invitations recorded in clear.
ALTER TABLE org_invitations ADD COLUMN email_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE org_invitations ADD COLUMN sealed_email TEXT NOT NULL DEFAULT '';
