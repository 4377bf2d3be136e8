-- The database oldlog_cd65aaa written by the code of commit cd65aaa (cmd/workbench/testdata/oldlog/cd65aaa.gen.go.txt),
-- dumped with pg_dump --inserts --no-owner --no-privileges --no-comments; the psql-only \restrict and
-- \unrestrict lines were removed so that the whole script runs through pgx's simple protocol.
--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: events_refuse_change(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.events_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'the event log is never updated, deleted from or truncated';
END;
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: agents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agents (
    agent_id text NOT NULL,
    org_id text NOT NULL,
    guild_id text,
    owner_id text NOT NULL,
    name text NOT NULL,
    is_default integer DEFAULT 0 NOT NULL,
    created_at text NOT NULL
);


--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    key_id text NOT NULL,
    user_id text NOT NULL,
    hash text NOT NULL,
    prefix text NOT NULL,
    sealed text,
    minted_at text NOT NULL,
    revoked_at text,
    agent_id text
);


--
-- Name: audit_chain; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_chain (
    seq bigint NOT NULL,
    commit_pos bigint NOT NULL,
    prepare_pos bigint NOT NULL,
    event_id text NOT NULL,
    hash bytea NOT NULL,
    CONSTRAINT audit_chain_seq_check CHECK ((seq > 0))
);


--
-- Name: audit_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_records (
    event_id text NOT NULL,
    user_id text NOT NULL,
    commit_pos text NOT NULL COLLATE pg_catalog."C",
    prepare_pos text NOT NULL COLLATE pg_catalog."C",
    at text NOT NULL,
    kind text NOT NULL,
    integration text DEFAULT ''::text NOT NULL,
    record text NOT NULL,
    CONSTRAINT audit_records_commit_pos_check CHECK ((length(commit_pos) = 20)),
    CONSTRAINT audit_records_prepare_pos_check CHECK ((length(prepare_pos) = 20))
);


--
-- Name: audit_seal_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_seal_keys (
    id integer NOT NULL,
    key_id text NOT NULL,
    public_key bytea NOT NULL,
    private_key text NOT NULL,
    created_at text NOT NULL,
    CONSTRAINT audit_seal_keys_id_check CHECK ((id = 1))
);


--
-- Name: audit_seals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_seals (
    seq bigint NOT NULL,
    commit_pos bigint NOT NULL,
    prepare_pos bigint NOT NULL,
    head bytea NOT NULL,
    sealed_at text NOT NULL,
    key_id text NOT NULL,
    signature bytea NOT NULL,
    CONSTRAINT audit_seals_seq_check CHECK ((seq > 0))
);


--
-- Name: audit_sink_checkpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_sink_checkpoints (
    sink text NOT NULL,
    "position" text NOT NULL COLLATE pg_catalog."C",
    delivered bigint DEFAULT 0 NOT NULL,
    updated_at text NOT NULL
);


--
-- Name: audit_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_users (
    user_id text NOT NULL,
    email text NOT NULL
);


--
-- Name: bus_relay_checkpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.bus_relay_checkpoints (
    name text NOT NULL,
    commit_position bigint NOT NULL,
    prepare_position bigint NOT NULL,
    updated_at text NOT NULL
);


--
-- Name: connection_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.connection_attempts (
    attempt_id text NOT NULL,
    user_id text NOT NULL,
    integration text NOT NULL,
    auth_mode text NOT NULL,
    outcome text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    started_at text NOT NULL,
    expires_at text NOT NULL,
    ended_at text
);


--
-- Name: connections; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.connections (
    user_id text NOT NULL,
    integration text NOT NULL,
    status text NOT NULL,
    auth_mode text DEFAULT ''::text NOT NULL,
    credential text,
    expires_at text,
    account_hint text DEFAULT ''::text NOT NULL,
    generation bigint DEFAULT 0 NOT NULL,
    attempt_id text DEFAULT ''::text NOT NULL,
    stream_version bigint NOT NULL,
    updated_at text NOT NULL,
    state text NOT NULL
);


--
-- Name: connector_calls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.connector_calls (
    org_id text NOT NULL,
    server_id text NOT NULL,
    slug text NOT NULL,
    month text NOT NULL,
    calls bigint NOT NULL,
    last_at text NOT NULL
);


--
-- Name: connectors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.connectors (
    id text NOT NULL,
    slug text NOT NULL,
    tool_prefix text NOT NULL,
    owner_org_id text,
    manifest text NOT NULL,
    digest text NOT NULL,
    source text NOT NULL,
    verified integer DEFAULT 0 NOT NULL,
    publisher text DEFAULT ''::text NOT NULL,
    version text DEFAULT ''::text NOT NULL,
    enabled integer DEFAULT 1 NOT NULL,
    oauth_client text,
    overrides text,
    updated_at text NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    "position" bigint NOT NULL,
    xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    id uuid NOT NULL,
    stream text NOT NULL,
    version bigint NOT NULL,
    type text NOT NULL,
    schema_version integer NOT NULL,
    data bytea NOT NULL,
    metadata jsonb NOT NULL,
    CONSTRAINT events_version_check CHECK ((version >= 1))
);


--
-- Name: events_position_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: events_position_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.events_position_seq OWNED BY public.events."position";


--
-- Name: guild_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.guild_members (
    guild_id text NOT NULL,
    user_id text NOT NULL,
    org_id text NOT NULL,
    added_at text NOT NULL
);


--
-- Name: guilds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.guilds (
    guild_id text NOT NULL,
    org_id text NOT NULL,
    name text NOT NULL,
    created_at text NOT NULL
);


--
-- Name: jot_blobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jot_blobs (
    sha256 text NOT NULL,
    size bigint NOT NULL,
    body bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    touched_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: jot_claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jot_claims (
    name text NOT NULL,
    creator text NOT NULL,
    expires_at text NOT NULL
);


--
-- Name: jot_files; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jot_files (
    name text NOT NULL,
    path text NOT NULL,
    size bigint NOT NULL,
    sha256 text NOT NULL,
    content_type text NOT NULL
);


--
-- Name: jots; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jots (
    name text NOT NULL,
    creator text NOT NULL,
    access text NOT NULL,
    password_hash text DEFAULT ''::text NOT NULL,
    cors integer DEFAULT 0 NOT NULL,
    generation bigint NOT NULL,
    version bigint NOT NULL,
    deployed_at text NOT NULL,
    updated_at text NOT NULL
);


--
-- Name: mcp_connections; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_connections (
    id text NOT NULL,
    server_id text NOT NULL,
    owner_scope text NOT NULL,
    owner_id text NOT NULL,
    status text NOT NULL,
    account_hint text DEFAULT ''::text NOT NULL,
    needs_settings integer DEFAULT 0 NOT NULL,
    listed_at text,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    rotated_at text,
    stream_version bigint NOT NULL,
    state text NOT NULL
);


--
-- Name: mcp_ended_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_ended_sessions (
    session_id text NOT NULL,
    expires_at text NOT NULL
);


--
-- Name: mcp_tool_listings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_tool_listings (
    login_id text NOT NULL,
    stream_version bigint NOT NULL,
    server_id text NOT NULL,
    digest text NOT NULL,
    previous_digest text DEFAULT ''::text NOT NULL,
    diff text NOT NULL,
    tool_count integer NOT NULL,
    listed_at text NOT NULL
);


--
-- Name: mcp_tool_switches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_tool_switches (
    scope text NOT NULL,
    scope_id text NOT NULL,
    server_id text NOT NULL,
    tool text NOT NULL,
    is_on integer NOT NULL,
    rule text DEFAULT ''::text NOT NULL,
    description_sha text DEFAULT ''::text NOT NULL,
    updated_at text NOT NULL,
    schema_sha text DEFAULT ''::text NOT NULL
);


--
-- Name: mcp_tools; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mcp_tools (
    login_id text NOT NULL,
    server_id text NOT NULL,
    name text NOT NULL,
    remote_name text NOT NULL,
    description text NOT NULL,
    description_sha text NOT NULL,
    input_schema text NOT NULL,
    read_only_hint integer,
    destructive_hint integer,
    schema_sha text DEFAULT ''::text NOT NULL,
    task_support text DEFAULT ''::text NOT NULL
);


--
-- Name: oauth_access_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_access_tokens (
    signature text NOT NULL,
    request_id text NOT NULL,
    issued_at text NOT NULL,
    expires_at text NOT NULL
);


--
-- Name: oauth_clients; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_clients (
    client_id text NOT NULL,
    client_name text NOT NULL,
    redirect_uris text NOT NULL,
    grant_types text NOT NULL,
    response_types text NOT NULL,
    scopes text NOT NULL,
    registered_at text NOT NULL
);


--
-- Name: oauth_grants; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_grants (
    request_id text NOT NULL,
    client_id text NOT NULL,
    user_id text NOT NULL,
    code_signature text NOT NULL,
    scopes text NOT NULL,
    audience text NOT NULL,
    redirect_uri text NOT NULL,
    code_challenge text NOT NULL,
    code_challenge_method text NOT NULL,
    requested_at text NOT NULL,
    code_expires_at text NOT NULL,
    issued_at text NOT NULL,
    code_exchanged_at text,
    code_revoked_at text,
    refresh_revoked_at text,
    access_revoked_at text,
    revoke_reason text DEFAULT ''::text NOT NULL,
    agent_id text
);


--
-- Name: oauth_refresh_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.oauth_refresh_tokens (
    signature text NOT NULL,
    request_id text NOT NULL,
    issued_at text NOT NULL,
    expires_at text,
    rotated_at text
);


--
-- Name: org_invitations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_invitations (
    org_id text NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    invited_by text NOT NULL,
    invited_at text NOT NULL,
    email_hash text DEFAULT ''::text NOT NULL,
    sealed_email text DEFAULT ''::text NOT NULL
);


--
-- Name: org_members; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_members (
    org_id text NOT NULL,
    user_id text NOT NULL,
    email text NOT NULL,
    role text NOT NULL,
    added_at text NOT NULL
);


--
-- Name: organizations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.organizations (
    org_id text NOT NULL,
    name text NOT NULL,
    personal integer DEFAULT 0 NOT NULL,
    created_by text NOT NULL,
    created_at text NOT NULL
);


--
-- Name: platform_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.platform_keys (
    name text NOT NULL,
    fields text NOT NULL,
    sealed text NOT NULL,
    set_by text NOT NULL,
    set_at text NOT NULL,
    stream_version bigint NOT NULL
);


--
-- Name: portal_ended_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.portal_ended_sessions (
    session_id text NOT NULL,
    user_id text NOT NULL,
    expires_at text NOT NULL
);


--
-- Name: portal_sessions_cut; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.portal_sessions_cut (
    user_id text NOT NULL,
    ended_before text NOT NULL
);


--
-- Name: projection_checkpoints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.projection_checkpoints (
    name text NOT NULL,
    commit_pos text NOT NULL COLLATE pg_catalog."C",
    prepare_pos text NOT NULL COLLATE pg_catalog."C",
    updated_at timestamp with time zone NOT NULL,
    error text,
    error_event_id uuid,
    error_event_type text,
    error_commit_pos text COLLATE pg_catalog."C",
    error_prepare_pos text COLLATE pg_catalog."C",
    error_at timestamp with time zone,
    CONSTRAINT projection_checkpoints_commit_pos_check CHECK ((length(commit_pos) = 20)),
    CONSTRAINT projection_checkpoints_prepare_pos_check CHECK ((length(prepare_pos) = 20))
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at text NOT NULL
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    user_id text NOT NULL,
    email text NOT NULL,
    display_name text DEFAULT ''::text NOT NULL,
    created_at text NOT NULL,
    erased_at text
);


--
-- Name: vault_data_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_data_keys (
    subject text NOT NULL,
    version integer NOT NULL,
    master_id text NOT NULL,
    sealed_key bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    CONSTRAINT vault_data_keys_version_check CHECK ((version >= 1))
);


--
-- Name: vault_shred_checkpoint; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_shred_checkpoint (
    id integer NOT NULL,
    commit_pos bigint NOT NULL,
    prepare_pos bigint NOT NULL,
    CONSTRAINT vault_shred_checkpoint_id_check CHECK ((id = 1))
);


--
-- Name: vault_subjects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.vault_subjects (
    subject text NOT NULL,
    shredded_at timestamp with time zone
);


--
-- Name: events position; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events ALTER COLUMN "position" SET DEFAULT nextval('public.events_position_seq'::regclass);


--
-- Data for Name: agents; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.agents VALUES ('6f11872d-b58f-5005-9532-fd179e9671c6', 'e3bc2739-3746-539b-b242-bd68dac575ad', NULL, '2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', 'Default agent', 1, '2026-12-07T14:45:57.063976835Z');
INSERT INTO public.agents VALUES ('e8a4a22d-d4b6-51ec-a022-e732a4e7b907', 'd47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', NULL, '337c588d-009a-414b-9c40-f8017bb1c3e4', 'Default agent', 1, '2026-12-07T14:45:57.113306348Z');
INSERT INTO public.agents VALUES ('1113369f-c056-5cfa-a28c-09f2820bd931', 'f19a44ab-5c26-5a36-a84a-613f76fc15dc', NULL, '0ec0c20d-2950-427e-aa23-e594cd3aa304', 'Default agent', 1, '2026-12-07T14:45:57.125499261Z');
INSERT INTO public.agents VALUES ('01a250f7-f52b-729f-bfb5-ba190ae1beb5', '01a250f7-f50e-7cee-b20d-95066a3d4d06', NULL, '337c588d-009a-414b-9c40-f8017bb1c3e4', 'ada-bot', 0, '2026-12-07T14:45:57.163172293Z');
INSERT INTO public.agents VALUES ('01a250f7-f531-72e6-9aa7-d6e8ac4da9a4', '01a250f7-f50e-7cee-b20d-95066a3d4d06', '01a250f7-f51e-794e-b2ac-eca67fb3ae73', '0ec0c20d-2950-427e-aa23-e594cd3aa304', 'bob-bot', 0, '2026-12-07T14:45:57.169190373Z');


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.api_keys VALUES ('1866648c-097b-499e-aca6-311acfc94a26', '337c588d-009a-414b-9c40-f8017bb1c3e4', 'c5ec1924e2d2b866e70eee35d91d5edda104afca73d7dcc4845f667dbea3e650', 'wb_hBdV…', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"AZGcficWTdpuC52iPIlszD8jJP6kVjeIpajYrXWM9at19pGHz7ljtj0eWumgkgI4FjeLm30mzVbW2rEGfQwaov5PSJ6DEdyxYTGbPKwZ"}', '2026-12-07T14:45:57.093110318Z', NULL, 'e8a4a22d-d4b6-51ec-a022-e732a4e7b907');
INSERT INTO public.api_keys VALUES ('34df0eed-5063-43d2-8d16-7da5ad922a0c', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '694fea81c20e39dd1c084c9299cb11e24b689e9a0c4f4695c7c1cb2704c61428', 'wb_HJAL…', '{"subject":"0ec0c20d-2950-427e-aa23-e594cd3aa304","key_version":1,"blob":"61PvhQCHECmdvfKQKBTWddgowm+ZQGepoN35wHNGzGAc9MdYozVZr0AHFlQmlN2yDoDyQKr3x6J2pRrAkZ7RYiPr/nQUgicy/VO4WUkk"}', '2026-12-07T14:45:57.109398189Z', NULL, '1113369f-c056-5cfa-a28c-09f2820bd931');
INSERT INTO public.api_keys VALUES ('fecc3364-9580-4076-af4e-4e750be5a93f', '337c588d-009a-414b-9c40-f8017bb1c3e4', '9223342b04fe4d71b5f28654a456c0452e075cf3956e0b0f3e600e5d7e5437a9', 'wb_wYQV…', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"GtxUlMoLKiyr0O97ZKqB41ySnYbf0GDrAnoM54h/ztrFHsp67h1Dz4v7BgE51CsG1kUU3VlSs+7YZRFY3v329o4VvTK5GbgPYeOlfCBs"}', '2026-12-07T14:45:57.178793980Z', NULL, '01a250f7-f52b-729f-bfb5-ba190ae1beb5');
INSERT INTO public.api_keys VALUES ('44523dd4-b699-447c-b9e8-b8add4b8f50b', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '716906fb637369cf7c90f61d051ef8061232ef15a13b4cae611be9b6cd33c8d3', 'wb_zRWW…', '{"subject":"0ec0c20d-2950-427e-aa23-e594cd3aa304","key_version":1,"blob":"DQKIbZXguQK80kM8HAxVgcGvNg6IuIy1zcZ+9ZZdfXhG2546zicUD/+dQIicfHOHX6l2wmifiFi0yu2t73kMjQmW1H+nnJ6o9VyKcKLz"}', '2026-12-07T14:45:57.185351017Z', NULL, '01a250f7-f531-72e6-9aa7-d6e8ac4da9a4');


--
-- Data for Name: audit_chain; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_chain VALUES (1, 767, 1, '01a250f7-f477-71a7-aee0-3295a535addf', '\xfc43c3ea74b15cd3d526ee81e676cfb7f8fb1b6ceba987fc4a118ded2a4d6c14');
INSERT INTO public.audit_chain VALUES (2, 770, 2, '01a250f7-f486-7c17-a566-e0f53dc02540', '\x6668dd0a321cdc23256392c9085f777b62362891a39fac0b0c0d13b39c70dfeb');
INSERT INTO public.audit_chain VALUES (3, 773, 3, '01a250f7-f489-7ba5-b242-fb6f969050c0', '\x20a0185b7cdf6d3ad93513768b7858ae48226008620e71b91be5b265bf9b878d');
INSERT INTO public.audit_chain VALUES (4, 778, 4, '01a250f7-f498-7055-8e9c-1752cad45d41', '\x02f0c4ce51f41ff7259d3ee6d2d556495c1d02ca02ae7a1961d10c74b780d4f1');
INSERT INTO public.audit_chain VALUES (5, 786, 5, '01a250f7-f4a6-7468-be5e-ab4978819b7c', '\x8897d944eb37541301e48c7c7d363ca449be18e68ece2c51e2d220a88c5959df');
INSERT INTO public.audit_chain VALUES (6, 788, 6, '01a250f7-f4a7-7da9-b7bd-92f009ebb1d3', '\xa163bf73c8a60311ebc96307aaf39128a9234d6b091481559b943cb6e7c1ccc0');
INSERT INTO public.audit_chain VALUES (7, 792, 7, '01a250f7-f4bd-7a3d-8b3f-59a6bf1722b2', '\x21f59aa59478de5067993d42f24756ee3dad6495438a07a6e0d50ba73ed44c9f');
INSERT INTO public.audit_chain VALUES (8, 797, 8, '01a250f7-f4c4-75c8-8257-f985a348a01b', '\xb71523925aad80dbb54b55614af85551632495f02feb6afb8ee5248defd60598');
INSERT INTO public.audit_chain VALUES (9, 800, 9, '01a250f7-f4c8-731b-b737-6dc416ce8b76', '\x13b57ab98f9c4307106dbfe51cff7e5eaae45ce1e8a0e2c6ba4d2c27365d6a1e');
INSERT INTO public.audit_chain VALUES (10, 800, 10, '01a250f7-f4c8-7386-b6d6-845ecd3c8594', '\x8ebdf98a488984cd3b9f88c02610de24eb5cb95cad2c4469140b7767524e8848');
INSERT INTO public.audit_chain VALUES (11, 800, 11, '01a250f7-f4c8-73c5-bf11-eadc7a94021d', '\x0012c7aea4f18ff38cef2d490d6f88e5cddcf6dff6eb3a2439dfcbe53f92827a');
INSERT INTO public.audit_chain VALUES (12, 803, 12, '01a250f7-f4d2-7e68-a82d-cd59fcf66031', '\x8fb57fb1d5f4842930f8c93444ae1f8e4a485159e8dea6aa85536430dabf6a63');
INSERT INTO public.audit_chain VALUES (13, 805, 13, '01a250f7-f4dd-7ec2-8b80-4a02e1ec1604', '\xb64d5689fd254ddfedd478f3ad3a600e24cd604a08fef35ada0accb1cdce36c4');
INSERT INTO public.audit_chain VALUES (14, 809, 14, '01a250f7-f4e3-78c5-8c01-9f7515dd9b90', '\x8ef2847cd99f2d8669796fee868014bd497d1f768202f2763b186bb30a550829');
INSERT INTO public.audit_chain VALUES (15, 811, 15, '01a250f7-f4e5-78b0-bc8e-4fb912244709', '\x033d0f8948b9136ba2fd0f095b02b1c1857ef8958ebe0e7b415d434374fb022f');
INSERT INTO public.audit_chain VALUES (16, 815, 16, '01a250f7-f4e9-7b5e-a794-ed93dad68c1f', '\x0851a79e0d58084b852db088f7470f8f4360592a21522c2b2cf834e7dd7bd2ec');
INSERT INTO public.audit_chain VALUES (17, 819, 17, '01a250f7-f4ee-7e67-821f-8d67c7b655a3', '\x5252db3a822403832300a7bd5cef62dcf19daa8b6f23b57228cc5d8b0fbf980e');
INSERT INTO public.audit_chain VALUES (18, 821, 18, '01a250f7-f4f5-7918-bc83-652f04dfb381', '\x6bd9456279e042a2258f0eec54f66e8ce3ff99a7322f082cfe68fae91dcad5b4');
INSERT INTO public.audit_chain VALUES (19, 825, 19, '01a250f7-f4f9-7810-9408-0c96c800946a', '\xfd2338a733a0e224e94c00f25a810c20412a0eec3dbbbfb1f938514394d64f41');
INSERT INTO public.audit_chain VALUES (20, 825, 20, '01a250f7-f4f9-782a-91eb-d59e4a17cdcb', '\xa63216b8f59f2475c5162f995a8c83335e5d2111dd0138122fbc055fb8e154ea');
INSERT INTO public.audit_chain VALUES (21, 825, 21, '01a250f7-f4f9-7841-9b8c-7d0847fc6113', '\x30010041474ee0966345fb5ebbffe21add23f98526ae342e931af75784e4c63f');
INSERT INTO public.audit_chain VALUES (22, 828, 22, '01a250f7-f505-7ab3-ab43-5171d60836f5', '\xcd6db428648406d943dfdd0ee41b7f76b5bea62330a79f7515a47cf0ed53c389');
INSERT INTO public.audit_chain VALUES (23, 828, 23, '01a250f7-f505-7ae8-aa48-4b5519a8d0b6', '\x672c93ba984c15ef42f402ab3ef82b5135bfb1b5467825eea6d1fcb4104909e5');
INSERT INTO public.audit_chain VALUES (24, 828, 24, '01a250f7-f505-7afc-825e-857deaf6874a', '\x8bcc6f1a17a96fc68979ff2b3d8389eece4d486fe76b5c17a42841a767629f5f');
INSERT INTO public.audit_chain VALUES (25, 831, 25, '01a250f7-f50f-70b0-b2b0-2a991f1040a5', '\x81de8a3646a18f43b1220e4001d76e76582e8741a80af1f3728ff8a8a70b70ca');
INSERT INTO public.audit_chain VALUES (26, 831, 26, '01a250f7-f50f-70f6-9a3a-5b3068edf610', '\xaad545b50671c7a5fc16e9f50174ee83cc505e8a374e905909559294d723bdd4');
INSERT INTO public.audit_chain VALUES (27, 835, 27, '01a250f7-f515-7439-833a-770841a46775', '\x6aa1cf4c946423406b99a6880ff96322ba3ed3a11443aef941f532aadbe557e2');
INSERT INTO public.audit_chain VALUES (28, 838, 28, '01a250f7-f519-7c4e-9367-e84390ae3d92', '\xd9e15baa39419fc6340911bc6341888378377eb085ee12f5aed7d773748e351c');
INSERT INTO public.audit_chain VALUES (29, 841, 29, '01a250f7-f51e-7d81-a4be-fb75adad75c4', '\x423b8f24f3d71bee0def751a80b2b6259f3c10b2b1e394afb0edfe2acfa866cd');
INSERT INTO public.audit_chain VALUES (30, 844, 30, '01a250f7-f522-7d3a-ac23-5f15b9857827', '\x623006dea80b5c0140d71d73d214b83192469f788499d72bc5cdb88c6dd1ae57');
INSERT INTO public.audit_chain VALUES (31, 847, 31, '01a250f7-f52b-77d7-8349-26121d762d30', '\x7a63ea1b6b152f802ab300165c019355a9f89c2e03ef48b8d4792dde36fc4eb0');
INSERT INTO public.audit_chain VALUES (32, 850, 32, '01a250f7-f531-777d-b158-663ae1b6cec5', '\xf2bcce045558e78ad80c0d1f89f70519cd187d0c58b4240c02dec2a30cf60541');
INSERT INTO public.audit_chain VALUES (33, 853, 33, '01a250f7-f53a-7f27-8e21-c2ccf3761b21', '\xa724a94d04de0cb3865437aa3514d804e55d23f38fe42b695de42dbad90d3e3f');
INSERT INTO public.audit_chain VALUES (34, 856, 34, '01a250f7-f541-7842-907b-23e0b67d0e53', '\x9e3e67b91c1ba666527f8c2d80dc74344b8fe9c12c74213494e682b7ce36bf94');
INSERT INTO public.audit_chain VALUES (35, 859, 35, '01a250f7-f54b-7944-a85c-2ceee0866e88', '\xc554046b21cdaaf7d5a6eee3606254242b9eb60a372a34c3253b8f925edfa98d');
INSERT INTO public.audit_chain VALUES (36, 862, 36, '01a250f7-f554-7132-9039-050a5394e523', '\x13a3d9838e739d1ab89aef175869a9917edf8e262b36f9d239ed6208efc3d227');
INSERT INTO public.audit_chain VALUES (37, 864, 37, '01a250f7-f56b-735e-a9ba-8fde45c0ee66', '\x9ae0453661ee5cc2fc38db2cd4c35c473038cfeaf405d2d7473f7a7441e29a0d');
INSERT INTO public.audit_chain VALUES (38, 866, 38, '01a250f7-f572-7099-9b1f-540784fd3052', '\xbb9504011bfe950b3dbe8ede8c75eeccafd8609b8215553daa55cd22d53b9805');
INSERT INTO public.audit_chain VALUES (39, 869, 39, '01a250f7-f578-725b-9344-305de6af489f', '\x0c3c2e543189cedbd1513e94800bdfc56f6493cd56961fa9ad8c6a1c6fd7790a');
INSERT INTO public.audit_chain VALUES (40, 872, 40, '01a250f7-f57d-77a6-ae5c-5663468442c8', '\x9545662318be43e61c31ac7340094448f2cd4b010eff935e74b16bfeffa406b4');
INSERT INTO public.audit_chain VALUES (41, 874, 41, '01a250f7-f585-73e8-bb90-9cb9bd163882', '\xae337f47baeb656e8c846bb8c5cb5941c1296fddec1fbce491cd3700b7b18f94');
INSERT INTO public.audit_chain VALUES (42, 876, 42, '01a250f7-f58c-7744-a267-e08aec89a42c', '\xe26de66302b2f19510b4fc8029ad7d2676616911ddf3d7ccb48866f93e085055');
INSERT INTO public.audit_chain VALUES (43, 879, 43, '01a250f7-f597-715b-af21-1e6389c99952', '\xa46130e35171d24c6265ca13a0fe1a9271f5008bc37f25b7bf9a2c7e50c317b0');
INSERT INTO public.audit_chain VALUES (44, 882, 44, '01a250f7-f5a4-767a-b15a-d652ce89c786', '\x45937512dfe0a9c35001f5dc1f9d0bb15cafd3fd603a482fabbeed6d61d73652');
INSERT INTO public.audit_chain VALUES (45, 885, 45, '01a250f7-f5ad-79c0-8ee5-bdbd8a818ac9', '\x6366752fdf52657beaca8cafc51388468608548d38a2b020eb8db5871a9eb58d');
INSERT INTO public.audit_chain VALUES (46, 888, 46, '01a250f7-f5b5-7256-a56a-2bd992dab186', '\x43f98515fe8575658b5149b51e9f3266cfb61d3060a9b0d07b4a3b9f0914160d');
INSERT INTO public.audit_chain VALUES (47, 891, 47, '01a250f7-f5bd-79e6-8698-a019cd443745', '\x501f2c4ecb6e534d8a7c89f4973c308fe9e27e7b0fec53ef4e203a0a258a4d89');
INSERT INTO public.audit_chain VALUES (48, 896, 48, '01a250f7-f5cd-7439-8c56-f5bc2d37749e', '\x68dbb9d8f2a4e120bb86d48e3435ae2c4881df1deb76f53f339858eb005879a2');
INSERT INTO public.audit_chain VALUES (49, 899, 49, '01a250f7-f5d7-7427-a0e4-1b9a8c1f3a5c', '\x41bcf68757d462e2ecede3be94227c0d0798b9cc5af1eea1265e5b4a9f6d9ad1');
INSERT INTO public.audit_chain VALUES (50, 902, 50, '01a250f7-f5e6-784d-a5e9-4d069e5b82d9', '\x77836b8331a7267d315b68bb73d1989370ab8604f30ceef667d4a34aab18fb4f');
INSERT INTO public.audit_chain VALUES (51, 905, 51, '01a250f7-f5f0-7e02-a31c-0f8150e0799a', '\x52b24b0c4f6008c96c53df736b186871a8ae95f2cacfdcccd9ac00c3468f970a');
INSERT INTO public.audit_chain VALUES (52, 908, 52, '01a250f7-f601-7342-aabb-7c800536bf91', '\x3c35af16d6a8b2a6f81d0023af61b00e061445267d00da111bed41008c755d69');
INSERT INTO public.audit_chain VALUES (53, 911, 53, '01a250f7-f60f-765e-a3bb-15cc316622ed', '\x94628067490f55c2337d15a289ab13aa87aa4f9542e0f9b20164cb7108c31443');
INSERT INTO public.audit_chain VALUES (54, 914, 54, '01a250f7-f621-785b-8eb9-0a190b2501d2', '\x519f3ab92d805663a71e30389cb2c79393f216b7d7278d29a4d29d8600e08c79');
INSERT INTO public.audit_chain VALUES (55, 917, 55, '01a250f7-f629-7d00-ae67-0037808fccb9', '\xa79e66ee2189ea5cb53224642f659a1fba8acf3ff0445867eb012bfcac49c0dc');
INSERT INTO public.audit_chain VALUES (56, 920, 56, '01a250f7-f631-7851-9aaf-45db058e990d', '\xdf2604b353ec79b4f50fb603e90e75b12d99a9625814677185a89770eee23f11');
INSERT INTO public.audit_chain VALUES (57, 923, 57, '01a250f7-f63a-77ec-beac-f5af848ccb12', '\xee30b0bbfef9a23c702eab009e08bbb177f8d48b1c424bf03067069460ba30eb');
INSERT INTO public.audit_chain VALUES (58, 926, 58, '01a250f7-f643-7d88-bcdb-355a9312327b', '\x9897c82991129fff5de1076fde77e1aaa5bb8f71f649e3248fa6736e5981c88f');
INSERT INTO public.audit_chain VALUES (59, 929, 59, '01a250f7-f64a-7c00-a0cb-fd3815fa0efd', '\xa4de7bfe8f27d5686d599b076ed98aaac2e1192beaed41f6db8de9e7064f724f');
INSERT INTO public.audit_chain VALUES (60, 932, 60, '01a250f7-f653-7567-b1ab-0f7eabda4a10', '\x5d5ce63f4bfbf2baaeb01ac0bd8e4deff577ce3e7bf002234cb329140054bc08');
INSERT INTO public.audit_chain VALUES (61, 935, 61, '01a250f7-f65a-7663-ac66-7310783bd2ad', '\xc0627dd236c74e56671309413aaf9ee5b34b2679a085306bcc67712b119fc200');
INSERT INTO public.audit_chain VALUES (62, 938, 62, '01a250f7-f662-73ad-b3ef-2c3969109151', '\xc1b9c77bf22368486af0c83719cea47af376022b7d9bd092d5851b34c23c2dc1');
INSERT INTO public.audit_chain VALUES (63, 940, 63, '01a250f7-f66a-73b3-9652-7a19dc037a0a', '\xe19305373ab0401164081fea79cc44d19f6d8dfb1dfe4a8947241914fc5304f0');
INSERT INTO public.audit_chain VALUES (64, 942, 64, '01a250f7-f66f-709b-aa67-7e03e5a08503', '\x8ee3993d84c32b3162418cb50b322f5c5e26b772a751c5b575be39d8a081be8b');
INSERT INTO public.audit_chain VALUES (65, 944, 65, '01a250f7-f671-75c3-a8af-7913fabf7a2a', '\x6c1b359cf6f7ba2c55430c726da30a8858b5e2061c007760ed108f2c08cf134d');
INSERT INTO public.audit_chain VALUES (66, 947, 66, '01a250f7-f67c-714b-99ab-15b0b17d5f8b', '\x570370e363a997dd748a3e16106a4d08729db4d1d83e4e88d2e43ebc8de54515');
INSERT INTO public.audit_chain VALUES (67, 949, 67, '01a250f7-f682-7e32-88b9-f441e3724bd5', '\xe8ec53b3a82afb032dbc542c2de188cc68eca9d1ca25d59e7f2a7c13ef1d0c56');
INSERT INTO public.audit_chain VALUES (68, 951, 68, '01a250f7-f68a-72ea-97a9-a9e9fc478519', '\xcd9253b5d9c2de091cb44bc6208734a10e936dc2ac4bb679de1c8b62118924f6');
INSERT INTO public.audit_chain VALUES (69, 953, 69, '01a250f7-f68c-7992-bbde-8d08f47fa946', '\xf08439063df802e0a434d08f1897b045c3150708279a94b70d7186041c14bb18');
INSERT INTO public.audit_chain VALUES (70, 955, 70, '01a250f7-f68f-784c-b977-a3ac027417ea', '\x192f77c7b5a30f14d410219f6b104ca5c7c49ed98a38e33857a0d0e842275db6');
INSERT INTO public.audit_chain VALUES (71, 958, 71, '01a250f7-f69f-788e-a942-43c883cb01e1', '\x99df6f1c6d6909ab92038f78d67f798a718f19c5ddd6f1d3d1f6c64220359fcb');
INSERT INTO public.audit_chain VALUES (72, 960, 72, '01a250f7-f6a1-7e5b-8663-8d534e596c00', '\x3d10870b663a1c6e1f69662a845f15dfee1046c77e69f441b45f150b9c0afdc4');
INSERT INTO public.audit_chain VALUES (73, 962, 73, '01a250f7-f6a6-7b63-adcb-75e9b02743dd', '\x0008de60fa1f1300da320bad758e90a2e214195e370a06b6ad14cf7e4b54a676');
INSERT INTO public.audit_chain VALUES (74, 965, 74, 'adb6a834-3152-4afc-864f-4242bb069df6', '\x5364fa2c7754e81732a8553a0c5f7b030661ce6b78b29af2875bcf1dd16b19fc');
INSERT INTO public.audit_chain VALUES (75, 967, 75, '95b89916-edc5-4ebf-9898-a6f44dc95827', '\x41d9dc13523d14185c7f922a5a5967febc4f3caed96bd2363bbcc4b93ad53d89');


--
-- Data for Name: audit_records; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_records VALUES ('01a250f7-f4e5-78b0-bc8e-4fb912244709', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000811', '00000000000000000015', '2026-12-07T14:45:57.093110318Z', 'api_key_minted', '', '{"time":"2026-12-07T14:45:57.093110318Z","event_id":"01a250f7-f4e5-78b0-bc8e-4fb912244709","position":{"commit":811,"prepare":15},"kind":"api_key_minted","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"test","key_id":"1866648c-097b-499e-aca6-311acfc94a26"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f4f5-7918-bc83-652f04dfb381', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '00000000000000000821', '00000000000000000018', '2026-12-07T14:45:57.109398189Z', 'api_key_minted', '', '{"time":"2026-12-07T14:45:57.109398189Z","event_id":"01a250f7-f4f5-7918-bc83-652f04dfb381","position":{"commit":821,"prepare":18},"kind":"api_key_minted","user_id":"0ec0c20d-2950-427e-aa23-e594cd3aa304","email":"bob@example.com","actor":"test","key_id":"34df0eed-5063-43d2-8d16-7da5ad922a0c"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f53a-7f27-8e21-c2ccf3761b21', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000853', '00000000000000000033', '2026-12-07T14:45:57.178793980Z', 'api_key_minted', '', '{"time":"2026-12-07T14:45:57.17879398Z","event_id":"01a250f7-f53a-7f27-8e21-c2ccf3761b21","position":{"commit":853,"prepare":33},"kind":"api_key_minted","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"test","agent_id":"01a250f7-f52b-729f-bfb5-ba190ae1beb5","key_id":"fecc3364-9580-4076-af4e-4e750be5a93f"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f541-7842-907b-23e0b67d0e53', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '00000000000000000856', '00000000000000000034', '2026-12-07T14:45:57.185351017Z', 'api_key_minted', '', '{"time":"2026-12-07T14:45:57.185351017Z","event_id":"01a250f7-f541-7842-907b-23e0b67d0e53","position":{"commit":856,"prepare":34},"kind":"api_key_minted","user_id":"0ec0c20d-2950-427e-aa23-e594cd3aa304","email":"bob@example.com","actor":"test","agent_id":"01a250f7-f531-72e6-9aa7-d6e8ac4da9a4","key_id":"44523dd4-b699-447c-b9e8-b8add4b8f50b"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f54b-7944-a85c-2ceee0866e88', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000859', '00000000000000000035', '2026-12-07T14:45:57.195321619Z', 'connect_started', 'github', '{"time":"2026-12-07T14:45:57.195321619Z","event_id":"01a250f7-f54b-7944-a85c-2ceee0866e88","position":{"commit":859,"prepare":35},"kind":"connect_started","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"github","client_id":"1866648c-097b-499e-aca6-311acfc94a26","connection_version":1,"attempt_id":"7e7df266-9d5d-4015-9ff5-9d8fac430a19","auth_mode":"oauth2"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f572-7099-9b1f-540784fd3052', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000866', '00000000000000000038', '2026-12-07T14:45:57.233742478Z', 'connected', 'github', '{"time":"2026-12-07T14:45:57.233742478Z","event_id":"01a250f7-f572-7099-9b1f-540784fd3052","position":{"commit":866,"prepare":38},"kind":"connected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"github","connection_version":2,"attempt_id":"7e7df266-9d5d-4015-9ff5-9d8fac430a19","auth_mode":"oauth2","scopes":["repo","read:user"]}');
INSERT INTO public.audit_records VALUES ('01a250f7-f578-725b-9344-305de6af489f', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000869', '00000000000000000039', '2026-12-07T14:45:57.239956725Z', 'connect_started', 'google-calendar', '{"time":"2026-12-07T14:45:57.239956725Z","event_id":"01a250f7-f578-725b-9344-305de6af489f","position":{"commit":869,"prepare":39},"kind":"connect_started","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"google-calendar","client_id":"1866648c-097b-499e-aca6-311acfc94a26","connection_version":1,"attempt_id":"2cc1d9b2-3015-45ca-b1a1-c25d9a4f2442","auth_mode":"oauth2"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f58c-7744-a267-e08aec89a42c', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000876', '00000000000000000042', '2026-12-07T14:45:57.260127335Z', 'connected', 'google-calendar', '{"time":"2026-12-07T14:45:57.260127335Z","event_id":"01a250f7-f58c-7744-a267-e08aec89a42c","position":{"commit":876,"prepare":42},"kind":"connected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"google-calendar","connection_version":2,"attempt_id":"2cc1d9b2-3015-45ca-b1a1-c25d9a4f2442","auth_mode":"oauth2","scopes":["https://www.googleapis.com/auth/calendar"]}');
INSERT INTO public.audit_records VALUES ('01a250f7-f597-715b-af21-1e6389c99952', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000879', '00000000000000000043', '2026-12-07T14:45:57.270906911Z', 'connected', 'brave-search', '{"time":"2026-12-07T14:45:57.270906911Z","event_id":"01a250f7-f597-715b-af21-1e6389c99952","position":{"commit":879,"prepare":43},"kind":"connected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"brave-search","connection_version":1,"auth_mode":"apikey"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f5a4-767a-b15a-d652ce89c786', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000882', '00000000000000000044', '2026-12-07T14:45:57.284217498Z', 'connected', 'datadog', '{"time":"2026-12-07T14:45:57.284217498Z","event_id":"01a250f7-f5a4-767a-b15a-d652ce89c786","position":{"commit":882,"prepare":44},"kind":"connected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"datadog","connection_version":1,"auth_mode":"apikey"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f5ad-79c0-8ee5-bdbd8a818ac9', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000885', '00000000000000000045', '2026-12-07T14:45:57.293394539Z', 'disconnected', 'datadog', '{"time":"2026-12-07T14:45:57.293394539Z","event_id":"01a250f7-f5ad-79c0-8ee5-bdbd8a818ac9","position":{"commit":885,"prepare":45},"kind":"disconnected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"datadog","connection_version":2,"reason":"user request"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f5b5-7256-a56a-2bd992dab186', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000888', '00000000000000000046', '2026-12-07T14:45:57.300929151Z', 'connected', 'reddit-web', '{"time":"2026-12-07T14:45:57.300929151Z","event_id":"01a250f7-f5b5-7256-a56a-2bd992dab186","position":{"commit":888,"prepare":46},"kind":"connected","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"reddit-web","connection_version":1,"auth_mode":"cookie"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f5bd-79e6-8698-a019cd443745', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000891', '00000000000000000047', '2026-12-07T14:45:57.309389913Z', 'connect_started', 'linear', '{"time":"2026-12-07T14:45:57.309389913Z","event_id":"01a250f7-f5bd-79e6-8698-a019cd443745","position":{"commit":891,"prepare":47},"kind":"connect_started","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"linear","client_id":"1866648c-097b-499e-aca6-311acfc94a26","connection_version":1,"attempt_id":"65f7d8d5-9c39-4b52-8e74-e17996528486","auth_mode":"oauth2"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f5d7-7427-a0e4-1b9a8c1f3a5c', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000899', '00000000000000000049', '2026-12-07T14:45:57.334963267Z', 'tools_listed', 'mcp_remote', '{"time":"2026-12-07T14:45:57.334963267Z","event_id":"01a250f7-f5d7-7427-a0e4-1b9a8c1f3a5c","position":{"commit":899,"prepare":49},"kind":"tools_listed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"mcp_remote","login_id":"01a250f7-f5c6-72c7-954d-451ad16d691d","digest":"e8ab274a05dd9c3fff57c28c90b8f8f8d53add751103ad15c892e8d9582d72b4","tool_count":4,"diff":{"added":["remote_create_issue","remote_echo","remote_whoami","remote_wipe_everything"]}}');
INSERT INTO public.audit_records VALUES ('01a250f7-f60f-765e-a3bb-15cc316622ed', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000911', '00000000000000000053', '2026-12-07T14:45:57.391110073Z', 'tools_listed', 'mcp_acme-tools_41581289', '{"time":"2026-12-07T14:45:57.391110073Z","event_id":"01a250f7-f60f-765e-a3bb-15cc316622ed","position":{"commit":911,"prepare":53},"kind":"tools_listed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"mcp_acme-tools_41581289","login_id":"01a250f7-f5fa-7b18-8558-d34d66f655f5","digest":"c09eaf8ef7ac82f6f4ce37cc93fa3137e975c15a37bda887ca6d48841a091f88","tool_count":4,"diff":{"added":["acmetools_create_issue","acmetools_echo","acmetools_whoami","acmetools_wipe_everything"]}}');
INSERT INTO public.audit_records VALUES ('01a250f7-f662-73ad-b3ef-2c3969109151', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000938', '00000000000000000062', '2026-12-07T14:45:57.474148655Z', 'tool_executed', 'utils', '{"time":"2026-12-07T14:45:57.474148655Z","event_id":"01a250f7-f662-73ad-b3ef-2c3969109151","position":{"commit":938,"prepare":62},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"utils","tool":"utils_echo","execution_id":"01a250f7-f661-764f-9f33-03b3275d29bf","success":true,"duration_ms":0,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","args_size":36,"args_sha256":"28e0e319e31296e7a78ade096b0612ffd48e7c41bf3e7c56683463ef3efa877a","result_size":36,"result_sha256":"28e0e319e31296e7a78ade096b0612ffd48e7c41bf3e7c56683463ef3efa877a"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f66a-73b3-9652-7a19dc037a0a', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000940', '00000000000000000063', '2026-12-07T14:45:57.482196095Z', 'tool_executed', 'github', '{"time":"2026-12-07T14:45:57.482196095Z","event_id":"01a250f7-f66a-73b3-9652-7a19dc037a0a","position":{"commit":940,"prepare":63},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"github","tool":"github_get_authenticated_user","execution_id":"01a250f7-f665-7adc-b336-1cb55034e20f","success":true,"duration_ms":4,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","connection_version":2,"args_size":2,"args_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","result_size":144,"result_sha256":"7c704bba37fe573eb9b3a32dfc11e57a7ee1ad3ee7065860992afe25665897ee"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f671-75c3-a8af-7913fabf7a2a', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000944', '00000000000000000065', '2026-12-07T14:45:57.489118324Z', 'refreshed', 'google-calendar', '{"time":"2026-12-07T14:45:57.489118324Z","event_id":"01a250f7-f671-75c3-a8af-7913fabf7a2a","position":{"commit":944,"prepare":65},"kind":"refreshed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"google-calendar","connection_version":3}');
INSERT INTO public.audit_records VALUES ('01a250f7-f67c-714b-99ab-15b0b17d5f8b', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000947', '00000000000000000066', '2026-12-07T14:45:57.500064909Z', 'tool_executed', 'google-calendar', '{"time":"2026-12-07T14:45:57.500064909Z","event_id":"01a250f7-f67c-714b-99ab-15b0b17d5f8b","position":{"commit":947,"prepare":66},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"google-calendar","tool":"google_calendar_list_calendars","execution_id":"01a250f7-f66d-7b43-9864-e1891256cf44","success":true,"duration_ms":14,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","connection_version":2,"args_size":2,"args_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","result_size":124,"result_sha256":"58e6848b5b06949295a8c3154ad9070fbce874eca949f0e13afb37ae8a5dda33"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f682-7e32-88b9-f441e3724bd5', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000949', '00000000000000000067', '2026-12-07T14:45:57.506913019Z', 'tool_executed', 'brave-search', '{"time":"2026-12-07T14:45:57.506913019Z","event_id":"01a250f7-f682-7e32-88b9-f441e3724bd5","position":{"commit":949,"prepare":67},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"brave-search","tool":"brave_search_web","execution_id":"01a250f7-f67e-77f7-86bf-50c92fdb1aca","success":true,"duration_ms":4,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","connection_version":1,"args_size":25,"args_sha256":"7503edd54ac18041bb18cc8dd1908c4f49fcfa2dede7d6b90afbd87f76c5c5b3","result_size":243,"result_sha256":"1a14d839c3a37341847dec67c477fef46b8e5452c4f59f09e053b03978d63935"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f68a-72ea-97a9-a9e9fc478519', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000951', '00000000000000000068', '2026-12-07T14:45:57.514179481Z', 'tool_executed', 'reddit-web', '{"time":"2026-12-07T14:45:57.514179481Z","event_id":"01a250f7-f68a-72ea-97a9-a9e9fc478519","position":{"commit":951,"prepare":68},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"reddit-web","tool":"reddit_web_me","execution_id":"01a250f7-f687-7476-a1bf-c514fd951ace","success":true,"duration_ms":2,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","connection_version":1,"args_size":2,"args_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","result_size":139,"result_sha256":"b7c69dce985265d534a944fbde29b5cce67d9ad6abd5d7fb905c46fce5bc0dfe"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f68c-7992-bbde-8d08f47fa946', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000953', '00000000000000000069', '2026-12-07T14:45:57.516619298Z', 'tool_executed', 'utils', '{"time":"2026-12-07T14:45:57.516619298Z","event_id":"01a250f7-f68c-7992-bbde-8d08f47fa946","position":{"commit":953,"prepare":69},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"utils","tool":"utils_time","execution_id":"01a250f7-f68c-7956-9d20-b1bd9b68a052","success":false,"error_code":"TOOL_OFF","duration_ms":0,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","args_size":2,"args_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","result_size":0}');
INSERT INTO public.audit_records VALUES ('01a250f7-f68f-784c-b977-a3ac027417ea', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000955', '00000000000000000070', '2026-12-07T14:45:57.519535725Z', 'tool_executed', 'datadog', '{"time":"2026-12-07T14:45:57.519535725Z","event_id":"01a250f7-f68f-784c-b977-a3ac027417ea","position":{"commit":955,"prepare":70},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"datadog","tool":"datadog_list_monitors","execution_id":"01a250f7-f68e-7bca-9e8c-a5a4bc9cf829","success":false,"error_code":"NOT_CONNECTED","duration_ms":0,"via":"api_key","client_id":"1866648c-097b-499e-aca6-311acfc94a26","agent_id":"e8a4a22d-d4b6-51ec-a022-e732a4e7b907","args_size":2,"args_sha256":"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","result_size":0}');
INSERT INTO public.audit_records VALUES ('01a250f7-f69f-788e-a942-43c883cb01e1', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000958', '00000000000000000071', '2026-12-07T14:45:57.535545547Z', 'tool_executed', 'mcp_remote', '{"time":"2026-12-07T14:45:57.535545547Z","event_id":"01a250f7-f69f-788e-a942-43c883cb01e1","position":{"commit":958,"prepare":71},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"mcp_remote","tool":"remote_echo","execution_id":"01a250f7-f69d-7e9b-a1de-515491ab9f70","success":true,"duration_ms":1,"via":"api_key","client_id":"fecc3364-9580-4076-af4e-4e750be5a93f","agent_id":"01a250f7-f52b-729f-bfb5-ba190ae1beb5","args_size":40,"args_sha256":"fcd6b7035ca0ed78e7d10eb37a412660c734256a9588701fd455f387db6ad307","result_size":74,"result_sha256":"42b7aa54cc78e0a639d9ee728bdeec7a2098586e3dab9504ba47773ae69555e6"}');
INSERT INTO public.audit_records VALUES ('01a250f7-f6a1-7e5b-8663-8d534e596c00', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000960', '00000000000000000072', '2026-12-07T14:45:57.537926306Z', 'tool_executed', 'utils', '{"time":"2026-12-07T14:45:57.537926306Z","event_id":"01a250f7-f6a1-7e5b-8663-8d534e596c00","position":{"commit":960,"prepare":72},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"utils","tool":"utils_echo","execution_id":"01a250f7-f6a1-724e-9c2c-6a6869953293","success":false,"error_code":"TOOL_OFF","duration_ms":0,"via":"api_key","client_id":"fecc3364-9580-4076-af4e-4e750be5a93f","agent_id":"01a250f7-f52b-729f-bfb5-ba190ae1beb5","args_size":36,"args_sha256":"28e0e319e31296e7a78ade096b0612ffd48e7c41bf3e7c56683463ef3efa877a","result_size":0}');
INSERT INTO public.audit_records VALUES ('01a250f7-f6a6-7b63-adcb-75e9b02743dd', '337c588d-009a-414b-9c40-f8017bb1c3e4', '00000000000000000962', '00000000000000000073', '2026-12-07T14:45:57.542736668Z', 'tool_executed', 'mcp_acme-tools_41581289', '{"time":"2026-12-07T14:45:57.542736668Z","event_id":"01a250f7-f6a6-7b63-adcb-75e9b02743dd","position":{"commit":962,"prepare":73},"kind":"tool_executed","user_id":"337c588d-009a-414b-9c40-f8017bb1c3e4","email":"ada@example.com","actor":"337c588d-009a-414b-9c40-f8017bb1c3e4","integration":"mcp_acme-tools_41581289","tool":"acmetools_whoami","execution_id":"01a250f7-f6a4-7a5e-8f3d-b0beb8a1a111","success":true,"duration_ms":2,"via":"api_key","client_id":"fecc3364-9580-4076-af4e-4e750be5a93f","agent_id":"01a250f7-f52b-729f-bfb5-ba190ae1beb5","args_size":11,"args_sha256":"63be7e41e020bc00ee1c7926929730c6f0a0b9c0c3d83427c76eb5acfba8dc67","result_size":58,"result_sha256":"20dda38f9b974bbb1d4f6a9ff63edda0271ed53de321e6b5859d32d8d6dfc0a1"}');


--
-- Data for Name: audit_seal_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_seal_keys VALUES (1, '58346af10d9cb50e', '\x3b66b2ed8739f5372072f3f2d57a9aacda3f5ad9f4b63ea0759000964653d61e', '{"subject":"audit:seal-key","key_version":1,"blob":"8F4wJc6dCsW5yIT8F0p6vNNuUxzXLG8jHHeQROi48hZbkpp5eEz/bA/tSYpel3MDPxrfpp2/cUkvO/dyQGnw2Q=="}', '2026-12-07T14:45:56.961803715Z');


--
-- Data for Name: audit_seals; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_seals VALUES (3, 773, 3, '\x20a0185b7cdf6d3ad93513768b7858ae48226008620e71b91be5b265bf9b878d', '2026-12-07T14:45:57.015138549Z', '58346af10d9cb50e', '\xba030aa2478409fa19ab7a35912a343768ac95afbbb032efa9cc72f4b68677450effee08f4b60d0dc6177a4c4b8077100592dd3bdc403baebf6c9ce2c58fd309');


--
-- Data for Name: audit_sink_checkpoints; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: audit_users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_users VALUES ('2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', 'admin@workbench.localhost');
INSERT INTO public.audit_users VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'ada@example.com');
INSERT INTO public.audit_users VALUES ('0ec0c20d-2950-427e-aa23-e594cd3aa304', 'bob@example.com');


--
-- Data for Name: bus_relay_checkpoints; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.bus_relay_checkpoints VALUES ('events', 967, 75, '2026-12-07T14:45:57.815067483Z');


--
-- Data for Name: connection_attempts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.connection_attempts VALUES ('7e7df266-9d5d-4015-9ff5-9d8fac430a19', '337c588d-009a-414b-9c40-f8017bb1c3e4', 'github', 'oauth2', 'connected', '', '2026-12-07T14:45:57.195321619Z', '2026-12-07T14:55:57.195321619Z', '2026-12-07T14:45:57.233742478Z');
INSERT INTO public.connection_attempts VALUES ('2cc1d9b2-3015-45ca-b1a1-c25d9a4f2442', '337c588d-009a-414b-9c40-f8017bb1c3e4', 'google-calendar', 'oauth2', 'connected', '', '2026-12-07T14:45:57.239956725Z', '2026-12-07T14:55:57.239956725Z', '2026-12-07T14:45:57.260127335Z');
INSERT INTO public.connection_attempts VALUES ('65f7d8d5-9c39-4b52-8e74-e17996528486', '337c588d-009a-414b-9c40-f8017bb1c3e4', 'linear', 'oauth2', 'pending', '', '2026-12-07T14:45:57.309389913Z', '2026-12-07T14:55:57.309389913Z', NULL);


--
-- Data for Name: connections; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'github', 'connected', 'oauth2', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"vkGynfjHlvLGReQgB8kaCzxsTh3Cg8Vr81KBm6WyxzFb9kOCJFv0KVr6D1oJly36U9TgxCywJWYvzLGgf0N0BHGhauthKU99qWyBcs9WpO3olLdQ4qSetp8xHwWFGYjcwl+IY4/9QFlCXvIuDKF71fnA1QV3V913bIig4v84ZoO6IRDJNr59vtrje0c10atc4vXHDtFvvpUqry8K3Jv2I0oLolTbFV3vItazxrehlOY6mKhJVuhRJsU2mos1MIVDbLrK0KGZcf0EmniBuvrRFBnPDMvJru2bZcAcuSLtNxjd2/5wQkFWppBSUpIpmS2eNxIx/ammElPAA/hurj1LKOD4NFPRaEQbPeT1Jw=="}', '2026-12-07T22:45:57.233742478Z', '', 1, '7e7df266-9d5d-4015-9ff5-9d8fac430a19', 2, '2026-12-07T14:45:57.233820975Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"github","CredentialStatus":"connected","AuthMode":"oauth2","Credential":{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"vkGynfjHlvLGReQgB8kaCzxsTh3Cg8Vr81KBm6WyxzFb9kOCJFv0KVr6D1oJly36U9TgxCywJWYvzLGgf0N0BHGhauthKU99qWyBcs9WpO3olLdQ4qSetp8xHwWFGYjcwl+IY4/9QFlCXvIuDKF71fnA1QV3V913bIig4v84ZoO6IRDJNr59vtrje0c10atc4vXHDtFvvpUqry8K3Jv2I0oLolTbFV3vItazxrehlOY6mKhJVuhRJsU2mos1MIVDbLrK0KGZcf0EmniBuvrRFBnPDMvJru2bZcAcuSLtNxjd2/5wQkFWppBSUpIpmS2eNxIx/ammElPAA/hurj1LKOD4NFPRaEQbPeT1Jw=="},"ExpiresAt":"2026-12-07T22:45:57.233742478Z","Scopes":["repo","read:user"],"AccountHint":"","ConnectedAt":"2026-12-07T14:45:57.233742478Z","RefreshedAt":"0001-01-01T00:00:00Z","Generation":1,"Reason":"","Attempt":{"ID":"7e7df266-9d5d-4015-9ff5-9d8fac430a19","AuthMode":"oauth2","StartedAt":"2026-12-07T14:45:57.195321619Z","ExpiresAt":"2026-12-07T14:55:57.195321619Z","Outcome":"connected","EndedAt":"2026-12-07T14:45:57.233742478Z","Reason":""}}');
INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'brave-search', 'connected', 'apikey', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"rhIPMlIMbxAI/pb33WEna1VrzeAV3SuAjn0uVLFK3DH1vdRQTvuzNZ1r30eRn/FQdgRA+LuYG0mAO5Wh760+CY4GxaZfi3S7aBaQLyVS8jw0zA=="}', NULL, '', 1, '', 1, '2026-12-07T14:45:57.270907572Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"brave-search","CredentialStatus":"connected","AuthMode":"apikey","Credential":{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"rhIPMlIMbxAI/pb33WEna1VrzeAV3SuAjn0uVLFK3DH1vdRQTvuzNZ1r30eRn/FQdgRA+LuYG0mAO5Wh760+CY4GxaZfi3S7aBaQLyVS8jw0zA=="},"ExpiresAt":"0001-01-01T00:00:00Z","Scopes":null,"AccountHint":"","ConnectedAt":"2026-12-07T14:45:57.270906911Z","RefreshedAt":"0001-01-01T00:00:00Z","Generation":1,"Reason":"","Attempt":{"ID":"00000000-0000-0000-0000-000000000000","AuthMode":"","StartedAt":"0001-01-01T00:00:00Z","ExpiresAt":"0001-01-01T00:00:00Z","Outcome":"","EndedAt":"0001-01-01T00:00:00Z","Reason":""}}');
INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'datadog', 'disconnected', 'apikey', NULL, NULL, '', 1, '', 2, '2026-12-07T14:45:57.293395390Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"datadog","CredentialStatus":"disconnected","AuthMode":"apikey","Credential":{"subject":"","key_version":0,"blob":null},"ExpiresAt":"0001-01-01T00:00:00Z","Scopes":null,"AccountHint":"","ConnectedAt":"2026-12-07T14:45:57.284217498Z","RefreshedAt":"0001-01-01T00:00:00Z","Generation":1,"Reason":"user request","Attempt":{"ID":"00000000-0000-0000-0000-000000000000","AuthMode":"","StartedAt":"0001-01-01T00:00:00Z","ExpiresAt":"0001-01-01T00:00:00Z","Outcome":"","EndedAt":"0001-01-01T00:00:00Z","Reason":""}}');
INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'google-calendar', 'connected', 'oauth2', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"xMEKrfCP4KKgBms1isVUuAKNpCgPx5WgKEvgEc3PGjscLylGh+Ci2w6CDrlHHNHyP0pkVOWMyT3lYbx7MGccTHZPr4zP6ir2LW+YZKLpkWm0iFLFrAf+TOVzTnj3zS1DGKRBoSiEjBLjHXtqM5GBWAKQLv9gKJzOlFhPjb8ecplA2SqVdFo0BTijTV+HehkItObVRjWoqDzNtC2XjHxwMU0PClyCQy+ayhoJ+xhHKvO3sXSitrpcviS0aUmGCjclFmmb0vDSvUfaJE+JD4DgzKlG9+0218ZKHBbF2s8Y7AUXyk4+J10S2jpzgHGlktGmPty54b+p"}', '2026-12-07T15:45:56.489118324Z', '', 2, '2cc1d9b2-3015-45ca-b1a1-c25d9a4f2442', 3, '2026-12-07T14:45:57.489166544Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"google-calendar","CredentialStatus":"connected","AuthMode":"oauth2","Credential":{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"xMEKrfCP4KKgBms1isVUuAKNpCgPx5WgKEvgEc3PGjscLylGh+Ci2w6CDrlHHNHyP0pkVOWMyT3lYbx7MGccTHZPr4zP6ir2LW+YZKLpkWm0iFLFrAf+TOVzTnj3zS1DGKRBoSiEjBLjHXtqM5GBWAKQLv9gKJzOlFhPjb8ecplA2SqVdFo0BTijTV+HehkItObVRjWoqDzNtC2XjHxwMU0PClyCQy+ayhoJ+xhHKvO3sXSitrpcviS0aUmGCjclFmmb0vDSvUfaJE+JD4DgzKlG9+0218ZKHBbF2s8Y7AUXyk4+J10S2jpzgHGlktGmPty54b+p"},"ExpiresAt":"2026-12-07T15:45:56.489118324Z","Scopes":["https://www.googleapis.com/auth/calendar"],"AccountHint":"","ConnectedAt":"2026-12-07T14:45:57.260127335Z","RefreshedAt":"2026-12-07T14:45:57.489118324Z","Generation":2,"Reason":"","Attempt":{"ID":"2cc1d9b2-3015-45ca-b1a1-c25d9a4f2442","AuthMode":"oauth2","StartedAt":"2026-12-07T14:45:57.239956725Z","ExpiresAt":"2026-12-07T14:55:57.239956725Z","Outcome":"connected","EndedAt":"2026-12-07T14:45:57.260127335Z","Reason":""}}');
INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'reddit-web', 'connected', 'cookie', '{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"8l5d8rf0sP5OdVEjOqy9sd9sfBlkqy+fUrzLeVPk3AyBG3Yw2o5t2J4bNhQUu8b68fdyshNU7/YSymnPLfLgD7DetIfxWHZXQgeTEZps1oA9qdKnTaApr/LmRbSv0X6S8lSPUiBwWt2fqLIHlqb8AWgeDtJbFnptpsC9+JrQvXL4/JWTJt7eN+BU/0UIHHAJ/U4OqyAqZQG2S1IkKgu/95JASzTWu1bzq+6nQOrYpEyoAiuCSEyBwpT+VtIANVxGcKPGZbKKRgghX8ua3wtHTo+W+UgQBrH847ubm4qajK6skWCk1l1nwSS4wuFxwHzgw/zx9UnVP7YFllKIfS+RfHtE5zTU0l9gDqaaxNl2j3UasYaI6jyS+w4WDh0Dpt3pjp4mJIdCeoZDeSC1mCp1Yyb4TJ4LaF97LmE1VYUy8H3GOoQe5zzGAc2Vtb1uB0wI5g4pLlr1bcOg1XlkMkIhPd3sEfn42ZuCD+E="}', '2035-01-01T00:00:00.000000000Z', '', 1, '', 1, '2026-12-07T14:45:57.300972752Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"reddit-web","CredentialStatus":"connected","AuthMode":"cookie","Credential":{"subject":"337c588d-009a-414b-9c40-f8017bb1c3e4","key_version":1,"blob":"8l5d8rf0sP5OdVEjOqy9sd9sfBlkqy+fUrzLeVPk3AyBG3Yw2o5t2J4bNhQUu8b68fdyshNU7/YSymnPLfLgD7DetIfxWHZXQgeTEZps1oA9qdKnTaApr/LmRbSv0X6S8lSPUiBwWt2fqLIHlqb8AWgeDtJbFnptpsC9+JrQvXL4/JWTJt7eN+BU/0UIHHAJ/U4OqyAqZQG2S1IkKgu/95JASzTWu1bzq+6nQOrYpEyoAiuCSEyBwpT+VtIANVxGcKPGZbKKRgghX8ua3wtHTo+W+UgQBrH847ubm4qajK6skWCk1l1nwSS4wuFxwHzgw/zx9UnVP7YFllKIfS+RfHtE5zTU0l9gDqaaxNl2j3UasYaI6jyS+w4WDh0Dpt3pjp4mJIdCeoZDeSC1mCp1Yyb4TJ4LaF97LmE1VYUy8H3GOoQe5zzGAc2Vtb1uB0wI5g4pLlr1bcOg1XlkMkIhPd3sEfn42ZuCD+E="},"ExpiresAt":"2035-01-01T00:00:00Z","Scopes":null,"AccountHint":"","ConnectedAt":"2026-12-07T14:45:57.300929151Z","RefreshedAt":"0001-01-01T00:00:00Z","Generation":1,"Reason":"","Attempt":{"ID":"00000000-0000-0000-0000-000000000000","AuthMode":"","StartedAt":"0001-01-01T00:00:00Z","ExpiresAt":"0001-01-01T00:00:00Z","Outcome":"","EndedAt":"0001-01-01T00:00:00Z","Reason":""}}');
INSERT INTO public.connections VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'linear', 'pending', 'oauth2', NULL, NULL, '', 0, '65f7d8d5-9c39-4b52-8e74-e17996528486', 1, '2026-12-07T14:45:57.309391967Z', '{"UserID":"337c588d-009a-414b-9c40-f8017bb1c3e4","Integration":"linear","CredentialStatus":"none","AuthMode":"oauth2","Credential":{"subject":"","key_version":0,"blob":null},"ExpiresAt":"0001-01-01T00:00:00Z","Scopes":null,"AccountHint":"","ConnectedAt":"0001-01-01T00:00:00Z","RefreshedAt":"0001-01-01T00:00:00Z","Generation":0,"Reason":"","Attempt":{"ID":"65f7d8d5-9c39-4b52-8e74-e17996528486","AuthMode":"oauth2","StartedAt":"2026-12-07T14:45:57.309389913Z","ExpiresAt":"2026-12-07T14:55:57.309389913Z","Outcome":"pending","EndedAt":"0001-01-01T00:00:00Z","Reason":""}}');


--
-- Data for Name: connector_calls; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: connectors; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.connectors VALUES ('mcp_brave', 'brave', 'brave2', NULL, '{"slug":"brave","display_name":"Brave Web Search","description":"Search the public web through Brave''s independent index, with the Brave Search API.","limitations":"Web results only (titles, links and snippets); at most 20 results a call.","setup_hint":"Runs on the platform''s Brave Search key: an instance admin sets the brave-search integration''s API key under Admin, Platform keys. An organisation may connect its own Brave Search API key instead.","version":"1.0.0","publisher":"Workbench","auth":{"kind":"token","fields":[{"name":"api_key","label":"Brave Search API key","secret":true,"placeholder":"BSA..."}],"instance":{"integration":"brave-search","field":"api_key"}},"tools":[{"name":"web_search","description":"Search the web. Answers each result''s title, url and description.","input_schema":{"type":"object","required":["query"],"additionalProperties":false,"properties":{"query":{"type":"string","minLength":1,"maxLength":400},"count":{"type":"integer","minimum":1,"maximum":20}}}}]}', '4f2f6f1444cee76a8db41094a640ca23c3dfad3e4ae174d158c25baba4bc5431', 'core', 1, 'Workbench', '1.0.0', 1, NULL, NULL, '2026-12-07T14:45:56.981711567Z');
INSERT INTO public.connectors VALUES ('mcp_github', 'github', 'github2', NULL, '{"slug":"github","display_name":"GitHub","description":"Repositories and issues of the GitHub accounts where the box''s GitHub App is installed, acting as that installation.","limitations":"The app''s permissions and the repositories the installation was given bound what the tools can do. Calls act as the app, not as the person who installed it.","setup_hint":"An instance admin registers a GitHub App (with \"Request user authorization (OAuth) during installation\" on and the callback URL \u003cSERVER_PUBLIC_URL\u003e/api/mcp/oauth/callback) and enters it under Admin, Platform keys (github_app). Connecting installs the app on an account you choose.","version":"1.0.0","publisher":"Workbench","auth":{"kind":"oauth","oauth":{"strategy":"github_app"}},"tools":[{"name":"list_repositories","description":"List the repositories the installation can reach: full_name, private, description, default_branch. page counts from 1, 100 a page.","input_schema":{"type":"object","properties":{"page":{"type":"integer","minimum":1}},"additionalProperties":false}},{"name":"list_issues","description":"List a repository''s issues and pull requests, newest first: number, title, state, user, labels, html_url. state is open (default), closed or all.","input_schema":{"type":"object","required":["repository"],"properties":{"repository":{"type":"string","pattern":"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$","description":"owner/name"},"state":{"enum":["open","closed","all"]},"page":{"type":"integer","minimum":1}},"additionalProperties":false}},{"name":"create_issue","description":"Open an issue in a repository with a title and an optional Markdown body; answers its number and html_url.","mutating":true,"input_schema":{"type":"object","required":["repository","title"],"properties":{"repository":{"type":"string","pattern":"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$","description":"owner/name"},"title":{"type":"string","minLength":1,"maxLength":256},"body":{"type":"string","maxLength":65536}},"additionalProperties":false}}]}', '13acc0ee06cc8c199db593e5edcecfa9180273d50deda5438b0b910a8313cda8', 'core', 1, 'Workbench', '1.0.0', 1, NULL, NULL, '2026-12-07T14:45:56.987822307Z');
INSERT INTO public.connectors VALUES ('mcp_github-mcp', 'github-mcp', 'githubmcp', NULL, '{"slug":"github-mcp","display_name":"GitHub (remote MCP)","description":"GitHub''s remote MCP server: repositories, issues, pull requests, code search and Actions, with a personal access token.","limitations":"The token''s scopes bound what the tools can do; fine-grained tokens limit them to chosen repositories.","setup_hint":"Create a fine-grained personal access token at github.com/settings/personal-access-tokens and paste it here.","version":"1.0.0","publisher":"GitHub","endpoint":{"url":"https://api.githubcopilot.com/mcp/"},"auth":{"kind":"token","fields":[{"name":"token","label":"Personal access token","secret":true,"placeholder":"github_pat_…"}]},"policy":{"default_off":["*delete*","merge_*","push_*"]}}', '7cbf6f2e7404be122838545fb10874553152e7a5afafc27d1a9ff600f1dd3076', 'core', 1, 'GitHub', '1.0.0', 1, NULL, NULL, '2026-12-07T14:45:57.000978322Z');
INSERT INTO public.connectors VALUES ('mcp_sentry', 'sentry', 'sentry2', NULL, '{"slug":"sentry","display_name":"Sentry (hosted MCP)","description":"Sentry''s hosted MCP server: issues, events, releases and projects of the organizations you sign in to.","limitations":"Signing in uses OAuth in your browser, with a client Workbench registers at Sentry (dynamic registration).","setup_hint":"Nothing to set up: Workbench registers its own OAuth client at Sentry the first time someone connects.","version":"1.0.0","publisher":"Sentry","endpoint":{"url":"https://mcp.sentry.dev/mcp"},"auth":{"kind":"oauth","oauth":{"strategy":"dynamic"}},"policy":{"default_off":["update_*","*_dsn"]}}', 'decbe34a52b1ddbebcff33d794c7974cfa807a0c47b7a0c2b762e2963c6946e1', 'core', 1, 'Sentry', '1.0.0', 1, NULL, NULL, '2026-12-07T14:45:57.010751505Z');
INSERT INTO public.connectors VALUES ('mcp_todoist', 'todoist', 'todoist', NULL, '{"slug":"todoist","display_name":"Todoist","description":"Read and add tasks in a Todoist project, through Todoist''s REST API.","limitations":"One default project per login; the agent may name another project by id.","setup_hint":"Copy your API token from Todoist, Settings, Integrations, Developer.","version":"1.0.0","publisher":"Workbench","auth":{"kind":"token","fields":[{"name":"api_token","label":"API token","secret":true}]},"settings_schema":{"type":"object","additionalProperties":false,"required":["project_id"],"properties":{"project_id":{"type":"string","title":"Default project","minLength":1,"maxLength":64,"x-lookup":true}}},"tools":[{"name":"list_tasks","description":"List the open tasks of the default project, or of project_id.","input_schema":{"type":"object","properties":{"project_id":{"type":"string"}},"additionalProperties":false}},{"name":"create_task","description":"Add a task to the default project, or to project_id.","mutating":true,"input_schema":{"type":"object","required":["content"],"properties":{"content":{"type":"string","minLength":1},"project_id":{"type":"string"},"due_string":{"type":"string"}},"additionalProperties":false}}]}', 'e80851e40a4c3258e6c1d73f0b6a7379f5463a5faef6d53ef32b2aeee3d42c90', 'core', 1, 'Workbench', '1.0.0', 1, NULL, NULL, '2026-12-07T14:45:57.021405133Z');
INSERT INTO public.connectors VALUES ('mcp_remote', 'remote', 'remote', NULL, '{"slug":"remote","display_name":"Remote","endpoint":{"url":"http://127.0.0.1:42333/mcp"},"auth":{"kind":"token"}}', 'a2e9ed124aea6843c18c3ad819d49df0f9af10f9098e3a5406b37dbc85c8b935', 'local', 0, '', '', 1, NULL, NULL, '2026-12-07T14:45:57.031312257Z');
INSERT INTO public.connectors VALUES ('mcp_acme-tools_41581289', 'acme-tools', 'acmetools', '01a250f7-f50e-7cee-b20d-95066a3d4d06', '{"auth":{"kind":"token"},"description":"Acme''s own MCP server.","display_name":"Acme Tools","endpoint":{"url":"http://127.0.0.1:42333/mcp"},"slug":"acme-tools"}', '56ad41a6c7916942178867213a2d2d6536dc4a10275c14f266ea686de786d788', 'local', 0, '', '', 1, NULL, NULL, '2026-12-07T14:45:57.352914094Z');


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES (1, '767', '01a250f7-f477-71a7-aee0-3295a535addf', 'connector-mcp_brave', 1, 'connector.installed', 1, '\x7b226964223a226d63705f6272617665222c22736c7567223a226272617665222c22746f6f6c5f707265666978223a22627261766532222c226d616e6966657374223a7b22736c7567223a226272617665222c22646973706c61795f6e616d65223a2242726176652057656220536561726368222c226465736372697074696f6e223a2253656172636820746865207075626c696320776562207468726f756768204272617665277320696e646570656e64656e7420696e6465782c20776974682074686520427261766520536561726368204150492e222c226c696d69746174696f6e73223a2257656220726573756c7473206f6e6c7920287469746c65732c206c696e6b7320616e6420736e697070657473293b206174206d6f737420323020726573756c747320612063616c6c2e222c2273657475705f68696e74223a2252756e73206f6e2074686520706c6174666f726d277320427261766520536561726368206b65793a20616e20696e7374616e63652061646d696e2073657473207468652062726176652d73656172636820696e746567726174696f6e277320415049206b657920756e6465722041646d696e2c20506c6174666f726d206b6579732e20416e206f7267616e69736174696f6e206d617920636f6e6e65637420697473206f776e2042726176652053656172636820415049206b657920696e73746561642e222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c2261757468223a7b226b696e64223a22746f6b656e222c226669656c6473223a5b7b226e616d65223a226170695f6b6579222c226c6162656c223a2242726176652053656172636820415049206b6579222c22736563726574223a747275652c22706c616365686f6c646572223a224253412e2e2e227d5d2c22696e7374616e6365223a7b22696e746567726174696f6e223a2262726176652d736561726368222c226669656c64223a226170695f6b6579227d7d2c22746f6f6c73223a5b7b226e616d65223a227765625f736561726368222c226465736372697074696f6e223a2253656172636820746865207765622e20416e7377657273206561636820726573756c742773207469746c652c2075726c20616e64206465736372697074696f6e2e222c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c227265717569726564223a5b227175657279225d2c226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b227175657279223a7b2274797065223a22737472696e67222c226d696e4c656e677468223a312c226d61784c656e677468223a3430307d2c22636f756e74223a7b2274797065223a22696e7465676572222c226d696e696d756d223a312c226d6178696d756d223a32307d7d7d7d5d7d2c22646967657374223a2234663266366631343434636565373661386462343130393461363430636132336333646661643365346165313734643135386332356261626134626335343331222c22736f75726365223a22636f7265222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c226174223a22323032362d31322d30375431343a34353a35362e3938313731313536375a227d', '{"time": "2026-12-07T14:45:56.981711998Z", "actor": "system"}');
INSERT INTO public.events VALUES (2, '770', '01a250f7-f486-7c17-a566-e0f53dc02540', 'connector-mcp_github', 1, 'connector.installed', 1, '\x7b226964223a226d63705f676974687562222c22736c7567223a22676974687562222c22746f6f6c5f707265666978223a2267697468756232222c226d616e6966657374223a7b22736c7567223a22676974687562222c22646973706c61795f6e616d65223a22476974487562222c226465736372697074696f6e223a225265706f7369746f7269657320616e6420697373756573206f662074686520476974487562206163636f756e74732077686572652074686520626f782773204769744875622041707020697320696e7374616c6c65642c20616374696e67206173207468617420696e7374616c6c6174696f6e2e222c226c696d69746174696f6e73223a22546865206170702773207065726d697373696f6e7320616e6420746865207265706f7369746f726965732074686520696e7374616c6c6174696f6e2077617320676976656e20626f756e6420776861742074686520746f6f6c732063616e20646f2e2043616c6c732061637420617320746865206170702c206e6f742061732074686520706572736f6e2077686f20696e7374616c6c65642069742e222c2273657475705f68696e74223a22416e20696e7374616e63652061646d696e2072656769737465727320612047697448756220417070202877697468205c2252657175657374207573657220617574686f72697a6174696f6e20284f417574682920647572696e6720696e7374616c6c6174696f6e5c22206f6e20616e64207468652063616c6c6261636b2055524c205c75303033635345525645525f5055424c49435f55524c5c75303033652f6170692f6d63702f6f617574682f63616c6c6261636b2920616e6420656e7465727320697420756e6465722041646d696e2c20506c6174666f726d206b65797320286769746875625f617070292e20436f6e6e656374696e6720696e7374616c6c732074686520617070206f6e20616e206163636f756e7420796f752063686f6f73652e222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c2261757468223a7b226b696e64223a226f61757468222c226f61757468223a7b227374726174656779223a226769746875625f617070227d7d2c22746f6f6c73223a5b7b226e616d65223a226c6973745f7265706f7369746f72696573222c226465736372697074696f6e223a224c69737420746865207265706f7369746f726965732074686520696e7374616c6c6174696f6e2063616e2072656163683a2066756c6c5f6e616d652c20707269766174652c206465736372697074696f6e2c2064656661756c745f6272616e63682e207061676520636f756e74732066726f6d20312c20313030206120706167652e222c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c2270726f70657274696573223a7b2270616765223a7b2274797065223a22696e7465676572222c226d696e696d756d223a317d7d2c226164646974696f6e616c50726f70657274696573223a66616c73657d7d2c7b226e616d65223a226c6973745f697373756573222c226465736372697074696f6e223a224c6973742061207265706f7369746f727927732069737375657320616e642070756c6c2072657175657374732c206e65776573742066697273743a206e756d6265722c207469746c652c2073746174652c20757365722c206c6162656c732c2068746d6c5f75726c2e207374617465206973206f70656e202864656661756c74292c20636c6f736564206f7220616c6c2e222c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c227265717569726564223a5b227265706f7369746f7279225d2c2270726f70657274696573223a7b227265706f7369746f7279223a7b2274797065223a22737472696e67222c227061747465726e223a225e5b412d5a612d7a302d395f2e2d5d2b2f5b412d5a612d7a302d395f2e2d5d2b24222c226465736372697074696f6e223a226f776e65722f6e616d65227d2c227374617465223a7b22656e756d223a5b226f70656e222c22636c6f736564222c22616c6c225d7d2c2270616765223a7b2274797065223a22696e7465676572222c226d696e696d756d223a317d7d2c226164646974696f6e616c50726f70657274696573223a66616c73657d7d2c7b226e616d65223a226372656174655f6973737565222c226465736372697074696f6e223a224f70656e20616e20697373756520696e2061207265706f7369746f727920776974682061207469746c6520616e6420616e206f7074696f6e616c204d61726b646f776e20626f64793b20616e737765727320697473206e756d62657220616e642068746d6c5f75726c2e222c226d75746174696e67223a747275652c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c227265717569726564223a5b227265706f7369746f7279222c227469746c65225d2c2270726f70657274696573223a7b227265706f7369746f7279223a7b2274797065223a22737472696e67222c227061747465726e223a225e5b412d5a612d7a302d395f2e2d5d2b2f5b412d5a612d7a302d395f2e2d5d2b24222c226465736372697074696f6e223a226f776e65722f6e616d65227d2c227469746c65223a7b2274797065223a22737472696e67222c226d696e4c656e677468223a312c226d61784c656e677468223a3235367d2c22626f6479223a7b2274797065223a22737472696e67222c226d61784c656e677468223a36353533367d7d2c226164646974696f6e616c50726f70657274696573223a66616c73657d7d5d7d2c22646967657374223a2231336163633065653036636338633139396462353933653565646365636661393138303237336435306465646135343338623062393130613833313363646138222c22736f75726365223a22636f7265222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c226174223a22323032362d31322d30375431343a34353a35362e3938373832323330375a227d', '{"time": "2026-12-07T14:45:56.987822868Z", "actor": "system"}');
INSERT INTO public.events VALUES (3, '773', '01a250f7-f489-7ba5-b242-fb6f969050c0', 'connector-mcp_github-mcp', 1, 'connector.installed', 1, '\x7b226964223a226d63705f6769746875622d6d6370222c22736c7567223a226769746875622d6d6370222c22746f6f6c5f707265666978223a226769746875626d6370222c226d616e6966657374223a7b22736c7567223a226769746875622d6d6370222c22646973706c61795f6e616d65223a22476974487562202872656d6f7465204d435029222c226465736372697074696f6e223a2247697448756227732072656d6f7465204d4350207365727665723a207265706f7369746f726965732c206973737565732c2070756c6c2072657175657374732c20636f64652073656172636820616e6420416374696f6e732c2077697468206120706572736f6e616c2061636365737320746f6b656e2e222c226c696d69746174696f6e73223a2254686520746f6b656e27732073636f70657320626f756e6420776861742074686520746f6f6c732063616e20646f3b2066696e652d677261696e656420746f6b656e73206c696d6974207468656d20746f2063686f73656e207265706f7369746f726965732e222c2273657475705f68696e74223a2243726561746520612066696e652d677261696e656420706572736f6e616c2061636365737320746f6b656e206174206769746875622e636f6d2f73657474696e67732f706572736f6e616c2d6163636573732d746f6b656e7320616e6420706173746520697420686572652e222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22476974487562222c22656e64706f696e74223a7b2275726c223a2268747470733a2f2f6170692e676974687562636f70696c6f742e636f6d2f6d63702f227d2c2261757468223a7b226b696e64223a22746f6b656e222c226669656c6473223a5b7b226e616d65223a22746f6b656e222c226c6162656c223a22506572736f6e616c2061636365737320746f6b656e222c22736563726574223a747275652c22706c616365686f6c646572223a226769746875625f7061745fe280a6227d5d7d2c22706f6c696379223a7b2264656661756c745f6f6666223a5b222a64656c6574652a222c226d657267655f2a222c22707573685f2a225d7d7d2c22646967657374223a2237636266366632653734303462653132323833383534356662313038373435353331353265376135616661666332376431613966663630306631646433303736222c22736f75726365223a22636f7265222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22476974487562222c226174223a22323032362d31322d30375431343a34353a35372e3030303937383332325a227d', '{"time": "2026-12-07T14:45:57.000978823Z", "actor": "system"}');
INSERT INTO public.events VALUES (4, '778', '01a250f7-f498-7055-8e9c-1752cad45d41', 'connector-mcp_sentry', 1, 'connector.installed', 1, '\x7b226964223a226d63705f73656e747279222c22736c7567223a2273656e747279222c22746f6f6c5f707265666978223a2273656e74727932222c226d616e6966657374223a7b22736c7567223a2273656e747279222c22646973706c61795f6e616d65223a2253656e7472792028686f73746564204d435029222c226465736372697074696f6e223a2253656e747279277320686f73746564204d4350207365727665723a206973737565732c206576656e74732c2072656c656173657320616e642070726f6a65637473206f6620746865206f7267616e697a6174696f6e7320796f75207369676e20696e20746f2e222c226c696d69746174696f6e73223a225369676e696e6720696e2075736573204f4175746820696e20796f75722062726f777365722c2077697468206120636c69656e7420576f726b62656e6368207265676973746572732061742053656e747279202864796e616d696320726567697374726174696f6e292e222c2273657475705f68696e74223a224e6f7468696e6720746f207365742075703a20576f726b62656e63682072656769737465727320697473206f776e204f4175746820636c69656e742061742053656e747279207468652066697273742074696d6520736f6d656f6e6520636f6e6e656374732e222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a2253656e747279222c22656e64706f696e74223a7b2275726c223a2268747470733a2f2f6d63702e73656e7472792e6465762f6d6370227d2c2261757468223a7b226b696e64223a226f61757468222c226f61757468223a7b227374726174656779223a2264796e616d6963227d7d2c22706f6c696379223a7b2264656661756c745f6f6666223a5b227570646174655f2a222c222a5f64736e225d7d7d2c22646967657374223a2264656362653334613532623164646265626366663333643739346337393734636661383037613063343762376130633262373632653239363363363934366531222c22736f75726365223a22636f7265222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a2253656e747279222c226174223a22323032362d31322d30375431343a34353a35372e3031303735313530355a227d', '{"time": "2026-12-07T14:45:57.010752036Z", "actor": "system"}');
INSERT INTO public.events VALUES (5, '786', '01a250f7-f4a6-7468-be5e-ab4978819b7c', 'connector-mcp_todoist', 1, 'connector.installed', 1, '\x7b226964223a226d63705f746f646f697374222c22736c7567223a22746f646f697374222c22746f6f6c5f707265666978223a22746f646f697374222c226d616e6966657374223a7b22736c7567223a22746f646f697374222c22646973706c61795f6e616d65223a22546f646f697374222c226465736372697074696f6e223a225265616420616e6420616464207461736b7320696e206120546f646f6973742070726f6a6563742c207468726f75676820546f646f69737427732052455354204150492e222c226c696d69746174696f6e73223a224f6e652064656661756c742070726f6a65637420706572206c6f67696e3b20746865206167656e74206d6179206e616d6520616e6f746865722070726f6a6563742062792069642e222c2273657475705f68696e74223a22436f707920796f75722041504920746f6b656e2066726f6d20546f646f6973742c2053657474696e67732c20496e746567726174696f6e732c20446576656c6f7065722e222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c2261757468223a7b226b696e64223a22746f6b656e222c226669656c6473223a5b7b226e616d65223a226170695f746f6b656e222c226c6162656c223a2241504920746f6b656e222c22736563726574223a747275657d5d7d2c2273657474696e67735f736368656d61223a7b2274797065223a226f626a656374222c226164646974696f6e616c50726f70657274696573223a66616c73652c227265717569726564223a5b2270726f6a6563745f6964225d2c2270726f70657274696573223a7b2270726f6a6563745f6964223a7b2274797065223a22737472696e67222c227469746c65223a2244656661756c742070726f6a656374222c226d696e4c656e677468223a312c226d61784c656e677468223a36342c22782d6c6f6f6b7570223a747275657d7d7d2c22746f6f6c73223a5b7b226e616d65223a226c6973745f7461736b73222c226465736372697074696f6e223a224c69737420746865206f70656e207461736b73206f66207468652064656661756c742070726f6a6563742c206f72206f662070726f6a6563745f69642e222c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c2270726f70657274696573223a7b2270726f6a6563745f6964223a7b2274797065223a22737472696e67227d7d2c226164646974696f6e616c50726f70657274696573223a66616c73657d7d2c7b226e616d65223a226372656174655f7461736b222c226465736372697074696f6e223a224164642061207461736b20746f207468652064656661756c742070726f6a6563742c206f7220746f2070726f6a6563745f69642e222c226d75746174696e67223a747275652c22696e7075745f736368656d61223a7b2274797065223a226f626a656374222c227265717569726564223a5b22636f6e74656e74225d2c2270726f70657274696573223a7b22636f6e74656e74223a7b2274797065223a22737472696e67222c226d696e4c656e677468223a317d2c2270726f6a6563745f6964223a7b2274797065223a22737472696e67227d2c226475655f737472696e67223a7b2274797065223a22737472696e67227d7d2c226164646974696f6e616c50726f70657274696573223a66616c73657d7d5d7d2c22646967657374223a2265383038353165343061346333323538653663316437336630623661373337396635343633613566616566366435336566333262326165656533643432633930222c22736f75726365223a22636f7265222c2276657273696f6e223a22312e302e30222c227075626c6973686572223a22576f726b62656e6368222c226174223a22323032362d31322d30375431343a34353a35372e3032313430353133335a227d', '{"time": "2026-12-07T14:45:57.021405734Z", "actor": "system"}');
INSERT INTO public.events VALUES (6, '788', '01a250f7-f4a7-7da9-b7bd-92f009ebb1d3', 'connector-mcp_remote', 1, 'connector.installed', 1, '\x7b226964223a226d63705f72656d6f7465222c22736c7567223a2272656d6f7465222c22746f6f6c5f707265666978223a2272656d6f7465222c226d616e6966657374223a7b22736c7567223a2272656d6f7465222c22646973706c61795f6e616d65223a2252656d6f7465222c22656e64706f696e74223a7b2275726c223a22687474703a2f2f3132372e302e302e313a34323333332f6d6370227d2c2261757468223a7b226b696e64223a22746f6b656e227d7d2c22646967657374223a2261326539656431323461656136383433633138633361643831396434396466306639616631306639303938653361353430366233376462633835633862393335222c22736f75726365223a226c6f63616c222c226174223a22323032362d31322d30375431343a34353a35372e3033313331323235375a227d', '{"time": "2026-12-07T14:45:57.031312828Z", "actor": "system"}');
INSERT INTO public.events VALUES (7, '792', '01a250f7-f4bd-7a3d-8b3f-59a6bf1722b2', 'user-email-025e1142697f9b4be37d01fbc297d2f0ff8570aef0a26f1b707041357d198d39', 1, 'identity.email_claimed', 1, '\x7b22757365725f6964223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c22636c61696d65645f6174223a22323032362d31322d30375431343a34353a35372e3035333435373933395a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (8, '797', '01a250f7-f4c4-75c8-8257-f985a348a01b', 'user-2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', 1, 'identity.user_created', 1, '\x7b22757365725f6964223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c2270726f66696c65223a7b227375626a656374223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226b65795f76657273696f6e223a312c22626c6f62223a2239355a575076626a4b70324e384251387248426f6c67587a6b2b746931353957744273507a385355344c2b346d3452656f66344f6c77522b4b77552f423139334d4c4c43426f6a74624c6352494e627a3377635353684d705a68614b227d2c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3036303039393439335a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (9, '800', '01a250f7-f4c8-731b-b737-6dc416ce8b76', 'organization-e3bc2739-3746-539b-b242-bd68dac575ad', 1, 'organization.created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2265336263323733392d333734362d353339622d623234322d626436386461633537356164222c226e616d65223a22506572736f6e616c222c22706572736f6e616c223a747275652c22637265617465645f6279223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3036333937363833355a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (10, '800', '01a250f7-f4c8-7386-b6d6-845ecd3c8594', 'organization-e3bc2739-3746-539b-b242-bd68dac575ad', 2, 'organization.member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2265336263323733392d333734362d353339622d623234322d626436386461633537356164222c22757365725f6964223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c227365616c65645f656d61696c223a7b227375626a656374223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226b65795f76657273696f6e223a312c22626c6f62223a224662717a306d596e63476e31336d52396375745164583168726d32656a783178394e2f4a4d71497a43682f6c556c6e6777394450464766354e35644f56736b7074545a4e2b5a656437364770227d2c22726f6c65223a226f776e6572222c2261646465645f6279223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226174223a22323032362d31322d30375431343a34353a35372e3036333937363833355a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (11, '800', '01a250f7-f4c8-73c5-bf11-eadc7a94021d', 'organization-e3bc2739-3746-539b-b242-bd68dac575ad', 3, 'organization.agent_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2265336263323733392d333734362d353339622d623234322d626436386461633537356164222c226167656e745f6964223a2236663131383732642d623538662d353030352d393533322d666431373965393637316336222c226f776e65725f6964223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226e616d65223a2244656661756c74206167656e74222c2264656661756c74223a747275652c22637265617465645f6279223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226174223a22323032362d31322d30375431343a34353a35372e3036333937363833355a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (12, '803', '01a250f7-f4d2-7e68-a82d-cd59fcf66031', 'signin_link-ed57d0250f14248ab547f484d5c685b39815f2f16aec1daf6f9daddec1ce5d7e', 1, 'signin_link.issued', 1, '\x7b226c696e6b5f68617368223a2265643537643032353066313432343861623534376634383464356336383562333938313566326631366165633164616636663964616464656331636535643765222c22757365725f6964223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c227365616c65645f656d61696c223a7b227375626a656374223a2232323034616338642d623662352d343339612d386163612d376633613164393231626134222c226b65795f76657273696f6e223a312c22626c6f62223a22365864506b766552704a66686e312b4f59675058442f2f7169373254353577307175634448364230524f7170306c6a6b4b6d39526e7179746758496670475655323050462f747977526e364c227d2c22707572706f7365223a2273746172747570222c226973737565645f6174223a22323032362d31322d30375431343a34353a35372e3035333434393431325a222c22657870697265735f6174223a22323032362d31322d30375431353a30303a35372e3035333434393431325a227d', '{"time": "2026-12-07T14:45:57.053449412Z", "actor": "system"}');
INSERT INTO public.events VALUES (13, '805', '01a250f7-f4dd-7ec2-8b80-4a02e1ec1604', 'user-email-b5fc85e55755f9e0d030a10ab4429b6b2944855f9a0d60077fe832becbc41d72', 1, 'identity.email_claimed', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22636c61696d65645f6174223a22323032362d31322d30375431343a34353a35372e30383537373633345a227d', '{"time": "2026-12-07T14:45:57.085767233Z", "actor": "test"}');
INSERT INTO public.events VALUES (14, '809', '01a250f7-f4e3-78c5-8c01-9f7515dd9b90', 'user-337c588d-009a-414b-9c40-f8017bb1c3e4', 1, 'identity.user_created', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c2270726f66696c65223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22696c7948464171624259774554716663715a674434682b4248364e346458646e2b6c354e2f32424a34304375786569703132514c666f4641467a417874424475422f4b30466f57573549346a5242733d227d2c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3039313137353630345a227d', '{"time": "2026-12-07T14:45:57.085767233Z", "actor": "test"}');
INSERT INTO public.events VALUES (15, '811', '01a250f7-f4e5-78b0-bc8e-4fb912244709', 'user-337c588d-009a-414b-9c40-f8017bb1c3e4', 2, 'identity.api_key_minted', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c2268617368223a2263356563313932346532643262383636653730656565333564393164356564646131303461666361373364376463633438343566363637646265613365363530222c22707265666978223a2277625f68426456e280a6222c227365616c6564223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22415a476366696357546470754335326950496c737a44386a4a50366b566a654970616a597258574d39617431397047487a376c6a746a306557756d676b674934466a654c6d33306d7a56625732724547665177616f763550534a36444564797859544762504b775a227d2c226d696e7465645f6174223a22323032362d31322d30375431343a34353a35372e3039333131303331385a227d', '{"time": "2026-12-07T14:45:57.085767233Z", "actor": "test", "on_behalf_of": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (16, '815', '01a250f7-f4e9-7b5e-a794-ed93dad68c1f', 'user-email-5ff860bf1190596c7188ab851db691f0f3169c453936e9e1eba2f9a47f7a0018', 1, 'identity.email_claimed', 1, '\x7b22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c22636c61696d65645f6174223a22323032362d31322d30375431343a34353a35372e3039373538303136365a227d', '{"time": "2026-12-07T14:45:57.097573924Z", "actor": "test"}');
INSERT INTO public.events VALUES (17, '819', '01a250f7-f4ee-7e67-821f-8d67c7b655a3', 'user-0ec0c20d-2950-427e-aa23-e594cd3aa304', 1, 'identity.user_created', 1, '\x7b22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c2270726f66696c65223a7b227375626a656374223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f76657273696f6e223a312c22626c6f62223a2254646761653034546d65556b546e6e32743147454f3771514b69656d30456f4d496e567754465a2b52473861636769422f447a736b67546b704358726a594975314a437136633046454666575353493d227d2c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3130323735383738385a227d', '{"time": "2026-12-07T14:45:57.097573924Z", "actor": "test"}');
INSERT INTO public.events VALUES (18, '821', '01a250f7-f4f5-7918-bc83-652f04dfb381', 'user-0ec0c20d-2950-427e-aa23-e594cd3aa304', 2, 'identity.api_key_minted', 1, '\x7b22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f6964223a2233346466306565642d353036332d343364322d386431362d376461356164393232613063222c2268617368223a2236393466656138316332306533396464316330383463393239396362313165323462363839653961306334663436393563376331636232373034633631343238222c22707265666978223a2277625f484a414ce280a6222c227365616c6564223a7b227375626a656374223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f76657273696f6e223a312c22626c6f62223a22363150766851434845436d6476664b514b4254576464676f776d2b5a514765706f4e333577484e477a474163394d64596f7a565a72304148466c516d6c4e3279446f4479514b723378364a32705272416b5a3752596950722f6e5155676963792f564f3457556b6b227d2c226d696e7465645f6174223a22323032362d31322d30375431343a34353a35372e3130393339383138395a227d', '{"time": "2026-12-07T14:45:57.097573924Z", "actor": "test", "on_behalf_of": "0ec0c20d-2950-427e-aa23-e594cd3aa304"}');
INSERT INTO public.events VALUES (19, '825', '01a250f7-f4f9-7810-9408-0c96c800946a', 'organization-d47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', 1, 'organization.created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2264343763643661352d323763362d353964332d613862382d373531326236643366313461222c226e616d65223a22506572736f6e616c222c22706572736f6e616c223a747275652c22637265617465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3131333330363334385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (20, '825', '01a250f7-f4f9-782a-91eb-d59e4a17cdcb', 'organization-d47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', 2, 'organization.member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2264343763643661352d323763362d353964332d613862382d373531326236643366313461222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c227365616c65645f656d61696c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22516373736a416841487172593978464c746a5345634e68656c7a704a753175597962417a7a776c63746f69784b4f635048346557316a34315668334c7445493d227d2c22726f6c65223a226f776e6572222c2261646465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3131333330363334385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (21, '825', '01a250f7-f4f9-7841-9b8c-7d0847fc6113', 'organization-d47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', 3, 'organization.agent_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2264343763643661352d323763362d353964332d613862382d373531326236643366313461222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c226f776e65725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226e616d65223a2244656661756c74206167656e74222c2264656661756c74223a747275652c22637265617465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3131333330363334385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (22, '828', '01a250f7-f505-7ab3-ab43-5171d60836f5', 'organization-f19a44ab-5c26-5a36-a84a-613f76fc15dc', 1, 'organization.created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2266313961343461622d356332362d356133362d613834612d363133663736666331356463222c226e616d65223a22506572736f6e616c222c22706572736f6e616c223a747275652c22637265617465645f6279223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3132353439393236315a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (23, '828', '01a250f7-f505-7ae8-aa48-4b5519a8d0b6', 'organization-f19a44ab-5c26-5a36-a84a-613f76fc15dc', 2, 'organization.member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2266313961343461622d356332362d356133362d613834612d363133663736666331356463222c22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c227365616c65645f656d61696c223a7b227375626a656374223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f76657273696f6e223a312c22626c6f62223a223867617879333034582b7934726457796741746b7673682b4c494d34636a6c57505a32415073456d796c6758474130666a582f777a3671747a3753554e43773d227d2c22726f6c65223a226f776e6572222c2261646465645f6279223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226174223a22323032362d31322d30375431343a34353a35372e3132353439393236315a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (24, '828', '01a250f7-f505-7afc-825e-857deaf6874a', 'organization-f19a44ab-5c26-5a36-a84a-613f76fc15dc', 3, 'organization.agent_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2266313961343461622d356332362d356133362d613834612d363133663736666331356463222c226167656e745f6964223a2231313133333639662d633035362d356366612d613238632d303966323832306264393331222c226f776e65725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226e616d65223a2244656661756c74206167656e74222c2264656661756c74223a747275652c22637265617465645f6279223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226174223a22323032362d31322d30375431343a34353a35372e3132353439393236315a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (25, '831', '01a250f7-f50f-70b0-b2b0-2a991f1040a5', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 1, 'organization.created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226e616d65223a2241636d65222c22637265617465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22637265617465645f6174223a22323032362d31322d30375431343a34353a35372e3133343836323034385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (26, '831', '01a250f7-f50f-70f6-9a3a-5b3068edf610', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 2, 'organization.member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c227365616c65645f656d61696c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22385a7456345970474a71567731417862635749594b67574f526d34306557723356315032536a716d4a51617a695a537a434a796770505a516639576c5345633d227d2c22726f6c65223a226f776e6572222c2261646465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3133343836323034385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (27, '835', '01a250f7-f515-7439-833a-770841a46775', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 3, 'organization.member_invited', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c22656d61696c5f68617368223a2238336363316565643732306432613839633030343761393636383838303561366465396133363137323230336130366435663934663232303134656263353263222c227365616c65645f656d61696c223a7b227375626a656374223a22696e76697465652d38336363316565643732306432613839633030343761393636383838303561366465396133363137323230336130366435663934663232303134656263353263222c226b65795f76657273696f6e223a312c22626c6f62223a22596e32626e726e443261774743497a47337a5569623851433879326d747135516d77505730387475796e79725a644b34743075764332334f744b6d746e4a513d227d2c22726f6c65223a226d656d626572222c22696e76697465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3133393736333632335a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (28, '838', '01a250f7-f519-7c4e-9367-e84390ae3d92', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 4, 'organization.member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c227365616c65645f656d61696c223a7b227375626a656374223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f76657273696f6e223a312c22626c6f62223a22645a684f4c334a784b494d4a45746b55354673497a645961345a4731752f6253623156547443546d75395978765849623950396f376d7364444134655778593d227d2c22696e7669746174696f6e5f68617368223a2238336363316565643732306432613839633030343761393636383838303561366465396133363137323230336130366435663934663232303134656263353263222c22726f6c65223a226d656d626572222c2261646465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e7669746564223a747275652c226174223a22323032362d31322d30375431343a34353a35372e3134353532353633355a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (29, '841', '01a250f7-f51e-7d81-a4be-fb75adad75c4', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 5, 'organization.guild_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226775696c645f6964223a2230316132353066372d663531652d373934652d623261632d656361363766623361653733222c226e616d65223a225265736561726368222c22637265617465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3135303631303138315a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (30, '844', '01a250f7-f522-7d3a-ac23-5f15b9857827', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 6, 'organization.guild_member_added', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226775696c645f6964223a2230316132353066372d663531652d373934652d623261632d656361363766623361653733222c22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c2261646465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3135343537323533325a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (31, '847', '01a250f7-f52b-77d7-8349-26121d762d30', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 7, 'organization.agent_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226167656e745f6964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235222c226f776e65725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226e616d65223a226164612d626f74222c22637265617465645f6279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3136333137323239335a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (32, '850', '01a250f7-f531-777d-b158-663ae1b6cec5', 'organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 8, 'organization.agent_created', 1, '\x7b226f7267616e697a6174696f6e5f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226167656e745f6964223a2230316132353066372d663533312d373265362d396161372d643665386163346461396134222c226f776e65725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226e616d65223a22626f622d626f74222c226775696c645f6964223a2230316132353066372d663531652d373934652d623261632d656361363766623361653733222c22637265617465645f6279223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226174223a22323032362d31322d30375431343a34353a35372e3136393139303337335a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (33, '853', '01a250f7-f53a-7f27-8e21-c2ccf3761b21', 'user-337c588d-009a-414b-9c40-f8017bb1c3e4', 3, 'identity.api_key_minted', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226167656e745f6964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235222c226b65795f6964223a2266656363333336342d393538302d343037362d616634652d346537353062653561393366222c2268617368223a2239323233333432623034666534643731623566323836353461343536633034353265303735636633393536653062306633653630306535643765353433376139222c22707265666978223a2277625f77595156e280a6222c227365616c6564223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22477478556c4d6f4c4b697972304f39375a4b7142343179536e59626630474472416e6f4d3534682f7a74724648737036376831447a3476374267453531437347316b555533566c53732b37595a52465933763332396f345676544b354762675059654f6c66434273227d2c226d696e7465645f6174223a22323032362d31322d30375431343a34353a35372e31373837393339385a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (34, '856', '01a250f7-f541-7842-907b-23e0b67d0e53', 'user-0ec0c20d-2950-427e-aa23-e594cd3aa304', 3, 'identity.api_key_minted', 1, '\x7b22757365725f6964223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226167656e745f6964223a2230316132353066372d663533312d373265362d396161372d643665386163346461396134222c226b65795f6964223a2234343532336464342d623639392d343437632d623965382d623861646434623866353062222c2268617368223a2237313639303666623633373336396366376339306636316430353165663830363132333265663135613133623463616536313162653962366364333363386433222c22707265666978223a2277625f7a525757e280a6222c227365616c6564223a7b227375626a656374223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226b65795f76657273696f6e223a312c22626c6f62223a2244514b49625a586775514b38306b4d3848417856676347764e673649754979317a635a2b395a5a6466586847323534367a696355442f2b645149696366484f4858366c32776d6966694669307975327437336b4d6a516d5731482b6e6e4a366f3956794b634b4c7a227d2c226d696e7465645f6174223a22323032362d31322d30375431343a34353a35372e3138353335313031375a227d', '{"time": "2026-12-07T14:45:57.08576011Z", "actor": "test"}');
INSERT INTO public.events VALUES (35, '859', '01a250f7-f54b-7944-a85c-2ceee0866e88', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-github', 1, 'connection.started', 1, '\x7b22617474656d70745f6964223a2237653764663236362d396435642d343031352d396666352d396438666163343330613139222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676974687562222c22617574685f6d6f6465223a226f6175746832222c22737461727465645f6174223a22323032362d31322d30375431343a34353a35372e3139353332313631395a222c22657870697265735f6174223a22323032362d31322d30375431343a35353a35372e3139353332313631395a227d', '{"time": "2026-12-07T14:45:57.195323352Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26"}');
INSERT INTO public.events VALUES (36, '862', '01a250f7-f554-7132-9039-050a5394e523', 'connection_handshake-e25ca7301b03618717b5a85851f82f509e7b3da3c5026027d7afa2cb078cb402', 1, 'connection_handshake.started', 1, '\x7b2273746174655f68617368223a2265323563613733303162303336313837313762356138353835316638326635303965376233646133633530323630323764376166613263623037386362343032222c22617474656d70745f6964223a2237653764663236362d396435642d343031352d396666352d396438666163343330613139222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676974687562222c227665726966696572223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a224b6857517449346d392f49396f7638575a6b494572325a73346f6a653678383034614d4a683849784a6764624735746a47676544764463556e79447154673263755239554f7a4b426a477132572f7271697571784b514662757536394c6d2b70636c4f38227d2c2272656469726563745f757269223a22687474703a2f2f3132372e302e302e313a33373330352f6170692f617574682f706c7567696e2f6769746875622f63616c6c6261636b222c22737461727465645f6174223a22323032362d31322d30375431343a34353a35372e323033363236325a222c22657870697265735f6174223a22323032362d31322d30375431343a35353a35372e3139353332313631395a227d', '{"time": "2026-12-07T14:45:57.203892978Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (37, '864', '01a250f7-f56b-735e-a9ba-8fde45c0ee66', 'connection_handshake-e25ca7301b03618717b5a85851f82f509e7b3da3c5026027d7afa2cb078cb402', 2, 'connection_handshake.callback_received', 1, '\x7b2273746174655f68617368223a2265323563613733303162303336313837313762356138353835316638326635303965376233646133633530323630323764376166613263623037386362343032222c22617474656d70745f6964223a2237653764663236362d396435642d343031352d396666352d396438666163343330613139222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676974687562222c226174223a22323032362d31322d30375431343a34353a35372e3232343839303635355a227d', '{"time": "2026-12-07T14:45:57.224891688Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (38, '866', '01a250f7-f572-7099-9b1f-540784fd3052', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-github', 2, 'connection.connected', 1, '\x7b22617474656d70745f6964223a2237653764663236362d396435642d343031352d396666352d396438666163343330613139222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676974687562222c22617574685f6d6f6465223a226f6175746832222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22766b47796e666a486c764c475265516742386b61437a7873546833436738567238314b426d365779787a4662396b4f434a4676304b56723644316f4a6c79333655395467784379774a5759767a4c476766304e3042484768617574684b5539397157794263733957704f336f6c4c645134715365747038784877574647596a63776c2b4959342f3951466c4358764975444b463731666e41315156335639313362496967347638345a6f4f364952444a4e7235397674726a65306331306174633476584844744676767055717279384b334a763249306f4c6f6c5462465633764974617a787265686c4f59366d4b684a567568524a7355326d6f73314d495644624c724b304b475a636630456d6e69427576725246426e50444d764a727532625a63416375534c744e786a64322f3577516b465770704253557049706d5332654e7849782f616d6d456c5041412f6875726a314c4b4f44344e46505261455162506554314a773d3d227d2c22657870697265735f6174223a22323032362d31322d30375432323a34353a35372e3233333734323437385a222c2273636f706573223a5b227265706f222c22726561643a75736572225d2c22636f6e6e65637465645f6174223a22323032362d31322d30375431343a34353a35372e3233333734323437385a227d', '{"time": "2026-12-07T14:45:57.233820975Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (39, '869', '01a250f7-f578-725b-9344-305de6af489f', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-google-calendar', 1, 'connection.started', 1, '\x7b22617474656d70745f6964223a2232636331643962322d333031352d343563612d623161312d633235643961346632343432222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c22617574685f6d6f6465223a226f6175746832222c22737461727465645f6174223a22323032362d31322d30375431343a34353a35372e3233393935363732355a222c22657870697265735f6174223a22323032362d31322d30375431343a35353a35372e3233393935363732355a227d', '{"time": "2026-12-07T14:45:57.239958678Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26"}');
INSERT INTO public.events VALUES (40, '872', '01a250f7-f57d-77a6-ae5c-5663468442c8', 'connection_handshake-028f6cd6e9deb4b3e910baa1b4f6e83b14134dad5e9ba0ad53ef8a8c66d64f05', 1, 'connection_handshake.started', 1, '\x7b2273746174655f68617368223a2230323866366364366539646562346233653931306261613162346636653833623134313334646164356539626130616435336566386138633636643634663035222c22617474656d70745f6964223a2232636331643962322d333031352d343563612d623161312d633235643961346632343432222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c227665726966696572223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22776e616f70617559734741347847734a53596b4d7061424f776f4943702f49716e663179473861536f4373774533325543704b634a5a7a46317238624d73684a5738623064633244716f6d6c394241436c443773464e652f746347773152697330793662227d2c2272656469726563745f757269223a22687474703a2f2f3132372e302e302e313a33373330352f6170692f617574682f706c7567696e2f676f6f676c652d63616c656e6461722f63616c6c6261636b222c22737461727465645f6174223a22323032362d31322d30375431343a34353a35372e3234353132353632395a222c22657870697265735f6174223a22323032362d31322d30375431343a35353a35372e3233393935363732355a227d', '{"time": "2026-12-07T14:45:57.245336272Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (41, '874', '01a250f7-f585-73e8-bb90-9cb9bd163882', 'connection_handshake-028f6cd6e9deb4b3e910baa1b4f6e83b14134dad5e9ba0ad53ef8a8c66d64f05', 2, 'connection_handshake.callback_received', 1, '\x7b2273746174655f68617368223a2230323866366364366539646562346233653931306261613162346636653833623134313334646164356539626130616435336566386138633636643634663035222c22617474656d70745f6964223a2232636331643962322d333031352d343563612d623161312d633235643961346632343432222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c226174223a22323032362d31322d30375431343a34353a35372e3235333130313030325a227d', '{"time": "2026-12-07T14:45:57.253101984Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (42, '876', '01a250f7-f58c-7744-a267-e08aec89a42c', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-google-calendar', 2, 'connection.connected', 1, '\x7b22617474656d70745f6964223a2232636331643962322d333031352d343563612d623161312d633235643961346632343432222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c22617574685f6d6f6465223a226f6175746832222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a226a735765706c4164454973587a31726e3066576136662f4c587a515a37684438666f542b75433236697a65534b7a425242474c6233543270624e474c6a4a63466f646d7a34586e72715a4f666f306767306452696b5078392f586834444e6330476b4563494d7765526972784767335a6a52464971584d494b6630435243564641527a356c394c6978524a6339712b4e30732b366246573063306b393330534f6373486f39314d757150766f794657766b2b3956446d4a7a43707265547a772b45734e515451534a6a5a69714349784645724978504a666c5a67364f6d4979622b5452772b566931586b395664794c79504d4e796d64384a6d66715a556e432b39596c57594d71305877544e33766f4d66476d6c5a2f2b35587376684661772f794e3065743878785969543743644f5445716543694c573563476f447a2f727746377a2b43765874227d2c22657870697265735f6174223a22323032362d31322d30375431343a34363a31372e3236303132373333355a222c2273636f706573223a5b2268747470733a2f2f7777772e676f6f676c65617069732e636f6d2f617574682f63616c656e646172225d2c22636f6e6e65637465645f6174223a22323032362d31322d30375431343a34353a35372e3236303132373333355a227d', '{"time": "2026-12-07T14:45:57.260145048Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (43, '879', '01a250f7-f597-715b-af21-1e6389c99952', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-brave-search', 1, 'connection.connected', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a2262726176652d736561726368222c22617574685f6d6f6465223a226170696b6579222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22726849504d6c494d627841492f7062333357456e613156727a654156335375416a6e3075564c464b33444831766452515476757a4e5a3172333065526e2f4651646752412b4c755947306d414f3557683736302b4359344778615a6669335337614261514c795653386a77307a413d3d227d2c22636f6e6e65637465645f6174223a22323032362d31322d30375431343a34353a35372e3237303930363931315a227d', '{"time": "2026-12-07T14:45:57.270907572Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (44, '882', '01a250f7-f5a4-767a-b15a-d652ce89c786', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-datadog', 1, 'connection.connected', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a2264617461646f67222c22617574685f6d6f6465223a226170696b6579222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a2272395a45535157304a73645838313664456d6768716154576b724c506c537142474337526b706131474c715379715936514c74496d486b5862344e45364a2f5533506e6b72646e374a527764716e757248672b386f7649383455786f4b7637722f41724c62467730476852354f68757a4a4f566e7763306a66576d625a666b3570444d67676143636a627062574b35626563546a4646322b6d6d79454952446944486b4149385a347739566a7266585353354b4f52752f3465523966766446787538754c68455138227d2c22636f6e6e65637465645f6174223a22323032362d31322d30375431343a34353a35372e3238343231373439385a227d', '{"time": "2026-12-07T14:45:57.28421821Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (45, '885', '01a250f7-f5ad-79c0-8ee5-bdbd8a818ac9', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-datadog', 2, 'connection.disconnected', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a2264617461646f67222c22726561736f6e223a22757365722072657175657374222c226174223a22323032362d31322d30375431343a34353a35372e3239333339343533395a227d', '{"time": "2026-12-07T14:45:57.29339539Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (46, '888', '01a250f7-f5b5-7256-a56a-2bd992dab186', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-reddit-web', 1, 'connection.connected', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a227265646469742d776562222c22617574685f6d6f6465223a22636f6f6b6965222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22386c3564387266307350354f6456456a4f7179397364397366426c6b71792b6655727a4c6556506b3341794247335977326f3574324a34624e685155753862363866647973684e55372f5953796d6e504c664c67443744657449667857485a5851676554455a7073316f413971644b6e54614170722f4c6d5262537630583653386c53505569427757743266714c49486c7162384157676544744a62466e7074707343392b4a725176584c342f4a57544a7437654e2b42552f3055494848414a2f55344f717941715a5147325331496b4b67752f39354a41537a54577531627a712b366e514f72597045796f41697543534579427770542b567449414e567847634b50475a624b4b526767685838756133777448546f2b572b55675142724838343775626d3471616a4b36736b57436b316c316e775353347775467877487a67772f7a7839556e56503759466c6c4b4966532b5266487445357a5455306c396744716161784e6c326a33556173596149366a79532b77345744683044707433706a70346d4a496443656f5a44655343316d43703159796234544a344c614639374c6d453156595579384833474f6f5165357a7a47416332567462317542307749356734704c6c723162634f6731586c6b4d6b49685064337345666e34325a7543442b453d227d2c22657870697265735f6174223a22323033352d30312d30315430303a30303a30305a222c22636f6e6e65637465645f6174223a22323032362d31322d30375431343a34353a35372e3330303932393135315a227d', '{"time": "2026-12-07T14:45:57.300972752Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (47, '891', '01a250f7-f5bd-79e6-8698-a019cd443745', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-linear', 1, 'connection.started', 1, '\x7b22617474656d70745f6964223a2236356637643864352d396333392d346235322d386537342d653137393936353238343836222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a226c696e656172222c22617574685f6d6f6465223a226f6175746832222c22737461727465645f6174223a22323032362d31322d30375431343a34353a35372e3330393338393931335a222c22657870697265735f6174223a22323032362d31322d30375431343a35353a35372e3330393338393931335a227d', '{"time": "2026-12-07T14:45:57.309391967Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26"}');
INSERT INTO public.events VALUES (48, '896', '01a250f7-f5cd-7439-8c56-f5bc2d37749e', 'login-mcp_remote-organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 1, 'login.connected', 1, '\x7b226c6f67696e5f6964223a2230316132353066372d663563362d373263372d393534642d343531616431366436393164222c227365727665725f6964223a226d63705f72656d6f7465222c226f776e6572223a7b2273636f7065223a226f7267616e697a6174696f6e222c226964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036227d2c2263726564656e7469616c223a7b227375626a656374223a226d63702d6c6f67696e3a30316132353066372d663563362d373263372d393534642d343531616431366436393164222c226b65795f76657273696f6e223a312c22626c6f62223a2231734a4a4a42766a334b2b61394a55483430726a703736696352632b703864703832357078644f654b5156493631626a7a7533756c563956557a595a66776b453671424b317a67756b306a30463461614c4d7654363166544f2f57426a68493d227d2c22737461747573223a22636f6e6e6563746564222c226174223a22323032362d31322d30375431343a34353a35372e3332353035313439345a227d', '{"time": "2026-12-07T14:45:57.325052887Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (49, '899', '01a250f7-f5d7-7427-a0e4-1b9a8c1f3a5c', 'login-mcp_remote-organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 2, 'login.tools_listed', 1, '\x7b226c6f67696e5f6964223a2230316132353066372d663563362d373263372d393534642d343531616431366436393164222c227365727665725f6964223a226d63705f72656d6f7465222c226f776e6572223a7b2273636f7065223a226f7267616e697a6174696f6e222c226964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036227d2c22646967657374223a2265386162323734613035646439633366666635376332386339306238663866386435336164643735313130336164313563383932653864393538326437326234222c22746f6f6c73223a5b7b226e616d65223a2272656d6f74655f6372656174655f6973737565222c2272656d6f7465223a226372656174655f6973737565222c226465736372697074696f6e223a224f70656e20616e2069737375652e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2272656d6f74655f6563686f222c2272656d6f7465223a226563686f222c226465736372697074696f6e223a224563686f207468652074657874206261636b2e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2272656d6f74655f77686f616d69222c2272656d6f7465223a2277686f616d69222c226465736372697074696f6e223a2253617920776869636820746f6b656e2063616c6c65642e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2272656d6f74655f776970655f65766572797468696e67222c2272656d6f7465223a22776970655f65766572797468696e67222c226465736372697074696f6e223a2244656c6574657320616c6c20646174612e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d2c22726561645f6f6e6c795f68696e74223a66616c73652c2264657374727563746976655f68696e74223a747275657d5d2c2264696666223a7b226164646564223a5b2272656d6f74655f6372656174655f6973737565222c2272656d6f74655f6563686f222c2272656d6f74655f77686f616d69222c2272656d6f74655f776970655f65766572797468696e67225d7d2c2264656661756c7473223a5b7b22746f6f6c223a2272656d6f74655f6372656174655f6973737565222c226f6e223a66616c73652c2272756c65223a2277726974696e675f76657262227d2c7b22746f6f6c223a2272656d6f74655f6563686f222c226f6e223a747275652c2272756c65223a2264656661756c745f6f6e227d2c7b22746f6f6c223a2272656d6f74655f77686f616d69222c226f6e223a747275652c2272756c65223a2264656661756c745f6f6e227d2c7b22746f6f6c223a2272656d6f74655f776970655f65766572797468696e67222c226f6e223a66616c73652c2272756c65223a2264657374727563746976655f68696e74227d5d2c226174223a22323032362d31322d30375431343a34353a35372e3333343936333236375a227d', '{"time": "2026-12-07T14:45:57.33496483Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (50, '902', '01a250f7-f5e6-784d-a5e9-4d069e5b82d9', 'connector-catalog', 1, 'connector.slug_claimed', 1, '\x7b226964223a226d63705f61636d652d746f6f6c735f3431353831323839222c22736c7567223a2261636d652d746f6f6c73222c226f776e65725f6f72675f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c22746f6f6c5f707265666978223a2261636d65746f6f6c73222c226174223a22323032362d31322d30375431343a34353a35372e3335303239383930395a227d', '{"time": "2026-12-07T14:45:57.350299931Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (51, '905', '01a250f7-f5f0-7e02-a31c-0f8150e0799a', 'connector-mcp_acme-tools_41581289', 1, 'connector.added', 1, '\x7b226964223a226d63705f61636d652d746f6f6c735f3431353831323839222c22736c7567223a2261636d652d746f6f6c73222c22746f6f6c5f707265666978223a2261636d65746f6f6c73222c226f776e65725f6f72675f6964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036222c226d616e6966657374223a7b2261757468223a7b226b696e64223a22746f6b656e227d2c226465736372697074696f6e223a2241636d652773206f776e204d4350207365727665722e222c22646973706c61795f6e616d65223a2241636d6520546f6f6c73222c22656e64706f696e74223a7b2275726c223a22687474703a2f2f3132372e302e302e313a34323333332f6d6370227d2c22736c7567223a2261636d652d746f6f6c73227d2c22646967657374223a2235366164343161366337393136393432313738383637323133613264326436353336646334613130323735633134663236366561363836646537383664373838222c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3335323931343039345a227d', '{"time": "2026-12-07T14:45:57.352915396Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (52, '908', '01a250f7-f601-7342-aabb-7c800536bf91', 'login-mcp_acme-tools_41581289-agent-01a250f7-f52b-729f-bfb5-ba190ae1beb5', 1, 'login.connected', 1, '\x7b226c6f67696e5f6964223a2230316132353066372d663566612d376231382d383535382d643334643636663635356635222c227365727665725f6964223a226d63705f61636d652d746f6f6c735f3431353831323839222c226f776e6572223a7b2273636f7065223a226167656e74222c226964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235227d2c2263726564656e7469616c223a7b227375626a656374223a226d63702d6c6f67696e3a30316132353066372d663566612d376231382d383535382d643334643636663635356635222c226b65795f76657273696f6e223a312c22626c6f62223a22757857334f6a7231754659484753394374597a675638376f2b6f65414b56523552356a414652633433566b6c4745343663483547714633324e456b69435565676c4a6d625161787643636e724a377a436d315565794b6a5555796a436e7473432f773d3d227d2c22737461747573223a22636f6e6e6563746564222c226174223a22323032362d31322d30375431343a34353a35372e3337373034363832375a227d', '{"time": "2026-12-07T14:45:57.377048309Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (53, '911', '01a250f7-f60f-765e-a3bb-15cc316622ed', 'login-mcp_acme-tools_41581289-agent-01a250f7-f52b-729f-bfb5-ba190ae1beb5', 2, 'login.tools_listed', 1, '\x7b226c6f67696e5f6964223a2230316132353066372d663566612d376231382d383535382d643334643636663635356635222c227365727665725f6964223a226d63705f61636d652d746f6f6c735f3431353831323839222c226f776e6572223a7b2273636f7065223a226167656e74222c226964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235227d2c22646967657374223a2263303965616638656637616338326636663463653337636339336661333133376539373563313561333762646138383763613664343838343161303931663838222c22746f6f6c73223a5b7b226e616d65223a2261636d65746f6f6c735f6372656174655f6973737565222c2272656d6f7465223a226372656174655f6973737565222c226465736372697074696f6e223a224f70656e20616e2069737375652e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2261636d65746f6f6c735f6563686f222c2272656d6f7465223a226563686f222c226465736372697074696f6e223a224563686f207468652074657874206261636b2e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2261636d65746f6f6c735f77686f616d69222c2272656d6f7465223a2277686f616d69222c226465736372697074696f6e223a2253617920776869636820746f6b656e2063616c6c65642e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d7d2c7b226e616d65223a2261636d65746f6f6c735f776970655f65766572797468696e67222c2272656d6f7465223a22776970655f65766572797468696e67222c226465736372697074696f6e223a2244656c6574657320616c6c20646174612e222c22696e7075745f736368656d61223a7b226164646974696f6e616c50726f70657274696573223a66616c73652c2270726f70657274696573223a7b2274657874223a7b2274797065223a22737472696e67227d7d2c227265717569726564223a5b2274657874225d2c2274797065223a226f626a656374227d2c22726561645f6f6e6c795f68696e74223a66616c73652c2264657374727563746976655f68696e74223a747275657d5d2c2264696666223a7b226164646564223a5b2261636d65746f6f6c735f6372656174655f6973737565222c2261636d65746f6f6c735f6563686f222c2261636d65746f6f6c735f77686f616d69222c2261636d65746f6f6c735f776970655f65766572797468696e67225d7d2c2264656661756c7473223a5b7b22746f6f6c223a2261636d65746f6f6c735f6372656174655f6973737565222c226f6e223a66616c73652c2272756c65223a2277726974696e675f76657262227d2c7b22746f6f6c223a2261636d65746f6f6c735f6563686f222c226f6e223a747275652c2272756c65223a2264656661756c745f6f6e227d2c7b22746f6f6c223a2261636d65746f6f6c735f77686f616d69222c226f6e223a747275652c2272756c65223a2264656661756c745f6f6e227d2c7b22746f6f6c223a2261636d65746f6f6c735f776970655f65766572797468696e67222c226f6e223a66616c73652c2272756c65223a2264657374727563746976655f68696e74227d5d2c226174223a22323032362d31322d30375431343a34353a35372e3339313131303037335a227d', '{"time": "2026-12-07T14:45:57.391111996Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (54, '914', '01a250f7-f621-785b-8eb9-0a190b2501d2', 'toolswitches-platform-00000000-0000-0000-0000-000000000000', 1, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a22706c6174666f726d222c226964223a2230303030303030302d303030302d303030302d303030302d303030303030303030303030227d2c227365727665725f6964223a22706c7567696e3a7574696c73222c22746f6f6c223a227574696c735f74696d65222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3430393330363133385a227d', '{"time": "2026-12-07T14:45:57.409307581Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (55, '917', '01a250f7-f629-7d00-ae67-0037808fccb9', 'toolswitches-organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 1, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226f7267616e697a6174696f6e222c226964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036227d2c227365727665725f6964223a22706c7567696e3a7574696c73222c22746f6f6c223a227574696c735f6563686f222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3431373634343633325a227d', '{"time": "2026-12-07T14:45:57.417645784Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (56, '920', '01a250f7-f631-7851-9aaf-45db058e990d', 'toolswitches-agent-01a250f7-f52b-729f-bfb5-ba190ae1beb5', 1, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226167656e74222c226964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235227d2c227365727665725f6964223a22706c7567696e3a676974687562222c22746f6f6c223a226769746875625f6c6973745f7265706f73222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3432353333343136345a227d', '{"time": "2026-12-07T14:45:57.425334925Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (57, '923', '01a250f7-f63a-77ec-beac-f5af848ccb12', 'toolswitches-agent-01a250f7-f531-72e6-9aa7-d6e8ac4da9a4', 1, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226167656e74222c226964223a2230316132353066372d663533312d373265362d396161372d643665386163346461396134227d2c227365727665725f6964223a22706c7567696e3a676974687562222c22746f6f6c223a226769746875625f6372656174655f6973737565222c226f6e223a747275652c226279223a2230656330633230642d323935302d343237652d616132332d653539346364336161333034222c226174223a22323032362d31322d30375431343a34353a35372e3433343334373139385a227d', '{"time": "2026-12-07T14:45:57.434347959Z", "actor": "0ec0c20d-2950-427e-aa23-e594cd3aa304"}');
INSERT INTO public.events VALUES (58, '926', '01a250f7-f643-7d88-bcdb-355a9312327b', 'toolswitches-platform-00000000-0000-0000-0000-000000000000', 2, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a22706c6174666f726d222c226964223a2230303030303030302d303030302d303030302d303030302d303030303030303030303030227d2c227365727665725f6964223a226d63705f72656d6f7465222c22746f6f6c223a2272656d6f74655f6372656174655f6973737565222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3434333638313234315a227d', '{"time": "2026-12-07T14:45:57.443682353Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (59, '929', '01a250f7-f64a-7c00-a0cb-fd3815fa0efd', 'toolswitches-organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 2, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226f7267616e697a6174696f6e222c226964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036227d2c227365727665725f6964223a226d63705f72656d6f7465222c22746f6f6c223a2272656d6f74655f77686f616d69222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3435303539303931365a227d', '{"time": "2026-12-07T14:45:57.450592088Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (60, '932', '01a250f7-f653-7567-b1ab-0f7eabda4a10', 'toolswitches-organization-01a250f7-f50e-7cee-b20d-95066a3d4d06', 3, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226f7267616e697a6174696f6e222c226964223a2230316132353066372d663530652d376365652d623230642d393530363661336434643036227d2c227365727665725f6964223a226d63705f72656d6f7465222c22746f6f6c223a2272656d6f74655f776970655f65766572797468696e67222c226f6e223a747275652c226465736372697074696f6e5f736861223a2262663465326461633863626437373566222c22736368656d615f736861223a2236626531333232343362353764643632222c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3435393135313436355a227d', '{"time": "2026-12-07T14:45:57.459152527Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (61, '935', '01a250f7-f65a-7663-ac66-7310783bd2ad', 'toolswitches-agent-01a250f7-f52b-729f-bfb5-ba190ae1beb5', 2, 'toolswitch.set', 1, '\x7b226f776e6572223a7b2273636f7065223a226167656e74222c226964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235227d2c227365727665725f6964223a226d63705f61636d652d746f6f6c735f3431353831323839222c22746f6f6c223a2261636d65746f6f6c735f6563686f222c226f6e223a66616c73652c226279223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226174223a22323032362d31322d30375431343a34353a35372e3436363139333039375a227d', '{"time": "2026-12-07T14:45:57.466194058Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (62, '938', '01a250f7-f662-73ad-b3ef-2c3969109151', 'execution-01a250f7-f661-764f-9f33-03b3275d29bf', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663636312d373634662d396633332d303362333237356432396266222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a227574696c73222c22746f6f6c223a227574696c735f6563686f222c2273756363657373223a747275652c226475726174696f6e5f6d73223a302c22617267735f73697a65223a33362c22617267735f736861323536223a2232386530653331396533313239366537613738616465303936623036313266666434386537633431626633653763353636383334363365663365666138373761222c22726573756c745f73697a65223a33362c22726573756c745f736861323536223a2232386530653331396533313239366537613738616465303936623036313266666434386537633431626633653763353636383334363365663365666138373761222c226174223a22323032362d31322d30375431343a34353a35372e3437343134383635355a227d', '{"time": "2026-12-07T14:45:57.474148655Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f661-764f-9f33-03b3275d29bf"}');
INSERT INTO public.events VALUES (63, '940', '01a250f7-f66a-73b3-9652-7a19dc037a0a', 'execution-01a250f7-f665-7adc-b336-1cb55034e20f', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663636352d376164632d623333362d316362353530333465323066222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a22676974687562222c22746f6f6c223a226769746875625f6765745f61757468656e746963617465645f75736572222c2273756363657373223a747275652c226475726174696f6e5f6d73223a342c22636f6e6e656374696f6e5f76657273696f6e223a322c22617267735f73697a65223a322c22617267735f736861323536223a2234343133366661333535623336373861313134366164313666376538363439653934666234666332316665373765383331306330363066363163616166663861222c22726573756c745f73697a65223a3134342c22726573756c745f736861323536223a2237633730346262613337666535373365623962336133326466633131653537613765653161643365653730363538363039393261666532353636353839376565222c226174223a22323032362d31322d30375431343a34353a35372e3438323139363039355a227d', '{"time": "2026-12-07T14:45:57.482196095Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f665-7adc-b336-1cb55034e20f"}');
INSERT INTO public.events VALUES (64, '942', '01a250f7-f66f-709b-aa67-7e03e5a08503', 'connection_refresh-337c588d-009a-414b-9c40-f8017bb1c3e4-google-calendar', 1, 'connection_refresh.claimed', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c2267656e65726174696f6e223a312c22636c61696d5f6964223a2233643266393333642d643266642d346639622d623036362d316436356263393330636164222c226174223a22323032362d31322d30375431343a34353a35372e3438363830313733375a222c22756e74696c223a22323032362d31322d30375431343a34363a32372e3438363830313733375a227d', '{"time": "2026-12-07T14:45:57.486814601Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (65, '944', '01a250f7-f671-75c3-a8af-7913fabf7a2a', 'connection-337c588d-009a-414b-9c40-f8017bb1c3e4-google-calendar', 3, 'connection.token_refreshed', 1, '\x7b22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c2263726564656e7469616c223a7b227375626a656374223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c226b65795f76657273696f6e223a312c22626c6f62223a22784d454b72664350344b4b67426d73316973565575414b4e70436750783557674b45766745633350476a73634c796c47682b43693277364344726c48484e48795030706b564f574d7954336c596278374d47636354485a5072347a50366972324c572b595a4b4c706b576d3069464c467241662b544f567a546e6a337a533144474b52426f5369456a424c6a485874714d35474257414b514c7639674b4a7a4f6c4668506a62386563706c413253715664466f304254696a54562b4865686b49744f6256526a576f71447a4e744332586a4878774d553050436c794351792b6179686f4a2b7868484b764f3373585369747270637669533061556d47436a636c466d6d6230764453765566614a452b4a443444677a4b6c47392b303231385a4b484262463273385937415558796b342b4a313053326a707a6748476c6b74476d5074793534622b70227d2c22657870697265735f6174223a22323032362d31322d30375431353a34353a35362e3438393131383332345a222c227265667265736865645f6174223a22323032362d31322d30375431343a34353a35372e3438393131383332345a222c226b6570745f6f6c645f726566726573685f746f6b656e223a747275657d', '{"time": "2026-12-07T14:45:57.489166544Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4"}');
INSERT INTO public.events VALUES (66, '947', '01a250f7-f67c-714b-99ab-15b0b17d5f8b', 'execution-01a250f7-f66d-7b43-9864-e1891256cf44', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663636642d376234332d393836342d653138393132353663663434222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a22676f6f676c652d63616c656e646172222c22746f6f6c223a22676f6f676c655f63616c656e6461725f6c6973745f63616c656e64617273222c2273756363657373223a747275652c226475726174696f6e5f6d73223a31342c22636f6e6e656374696f6e5f76657273696f6e223a322c22617267735f73697a65223a322c22617267735f736861323536223a2234343133366661333535623336373861313134366164313666376538363439653934666234666332316665373765383331306330363066363163616166663861222c22726573756c745f73697a65223a3132342c22726573756c745f736861323536223a2235386536383438623562303639343932393561386333313534616439303730666263653837346563613934396630653133616662333761653861356464613333222c226174223a22323032362d31322d30375431343a34353a35372e3530303036343930395a227d', '{"time": "2026-12-07T14:45:57.500064909Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f66d-7b43-9864-e1891256cf44"}');
INSERT INTO public.events VALUES (67, '949', '01a250f7-f682-7e32-88b9-f441e3724bd5', 'execution-01a250f7-f67e-77f7-86bf-50c92fdb1aca', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663637652d373766372d383662662d353063393266646231616361222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a2262726176652d736561726368222c22746f6f6c223a2262726176655f7365617263685f776562222c2273756363657373223a747275652c226475726174696f6e5f6d73223a342c22636f6e6e656374696f6e5f76657273696f6e223a312c22617267735f73697a65223a32352c22617267735f736861323536223a2237353033656464353461633138303431626231386363386464313930386334663439666366613264656465376436623930616662643837663736633563356233222c22726573756c745f73697a65223a3234332c22726573756c745f736861323536223a2231613134643833396333613337333431383437646563363763343737666566343662386535343532633466353966303965303533623033393738643633393335222c226174223a22323032362d31322d30375431343a34353a35372e3530363931333031395a227d', '{"time": "2026-12-07T14:45:57.506913019Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f67e-77f7-86bf-50c92fdb1aca"}');
INSERT INTO public.events VALUES (68, '951', '01a250f7-f68a-72ea-97a9-a9e9fc478519', 'execution-01a250f7-f687-7476-a1bf-c514fd951ace', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663638372d373437362d613162662d633531346664393531616365222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a227265646469742d776562222c22746f6f6c223a227265646469745f7765625f6d65222c2273756363657373223a747275652c226475726174696f6e5f6d73223a322c22636f6e6e656374696f6e5f76657273696f6e223a312c22617267735f73697a65223a322c22617267735f736861323536223a2234343133366661333535623336373861313134366164313666376538363439653934666234666332316665373765383331306330363066363163616166663861222c22726573756c745f73697a65223a3133392c22726573756c745f736861323536223a2262376336396463653938353236356435333461393434666264653239623563636536376439616436616264356437666239303563343666636535626330646665222c226174223a22323032362d31322d30375431343a34353a35372e3531343137393438315a227d', '{"time": "2026-12-07T14:45:57.514179481Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f687-7476-a1bf-c514fd951ace"}');
INSERT INTO public.events VALUES (69, '953', '01a250f7-f68c-7992-bbde-8d08f47fa946', 'execution-01a250f7-f68c-7956-9d20-b1bd9b68a052', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663638632d373935362d396432302d623162643962363861303532222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a227574696c73222c22746f6f6c223a227574696c735f74696d65222c2273756363657373223a66616c73652c226572726f725f636f6465223a22544f4f4c5f4f4646222c226475726174696f6e5f6d73223a302c22617267735f73697a65223a322c22617267735f736861323536223a2234343133366661333535623336373861313134366164313666376538363439653934666234666332316665373765383331306330363066363163616166663861222c22726573756c745f73697a65223a302c226174223a22323032362d31322d30375431343a34353a35372e3531363631393239385a227d', '{"time": "2026-12-07T14:45:57.516619298Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f68c-7956-9d20-b1bd9b68a052"}');
INSERT INTO public.events VALUES (70, '955', '01a250f7-f68f-784c-b977-a3ac027417ea', 'execution-01a250f7-f68e-7bca-9e8c-a5a4bc9cf829', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663638652d376263612d396538632d613561346263396366383239222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2231383636363438632d303937622d343939652d616361362d333131616366633934613236222c226167656e745f6964223a2265386134613232642d643462362d353165632d613032322d653733326134653762393037222c22696e746567726174696f6e223a2264617461646f67222c22746f6f6c223a2264617461646f675f6c6973745f6d6f6e69746f7273222c2273756363657373223a66616c73652c226572726f725f636f6465223a224e4f545f434f4e4e4543544544222c226475726174696f6e5f6d73223a302c22617267735f73697a65223a322c22617267735f736861323536223a2234343133366661333535623336373861313134366164313666376538363439653934666234666332316665373765383331306330363066363163616166663861222c22726573756c745f73697a65223a302c226174223a22323032362d31322d30375431343a34353a35372e3531393533353732355a227d', '{"time": "2026-12-07T14:45:57.519535725Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "1866648c-097b-499e-aca6-311acfc94a26", "correlation_id": "01a250f7-f68e-7bca-9e8c-a5a4bc9cf829"}');
INSERT INTO public.events VALUES (71, '958', '01a250f7-f69f-788e-a942-43c883cb01e1', 'execution-01a250f7-f69d-7e9b-a1de-515491ab9f70', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663639642d376539622d613164652d353135343931616239663730222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2266656363333336342d393538302d343037362d616634652d346537353062653561393366222c226167656e745f6964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235222c22696e746567726174696f6e223a226d63705f72656d6f7465222c22746f6f6c223a2272656d6f74655f6563686f222c2273756363657373223a747275652c226475726174696f6e5f6d73223a312c22617267735f73697a65223a34302c22617267735f736861323536223a2266636436623730333563613065643738653764313065623337613431323636306337333432353661393538383730316664343535663338376462366164333037222c22726573756c745f73697a65223a37342c22726573756c745f736861323536223a2234326237616135346363373865306136333964396565373238626465656337613230393835383665336461623935303462613437373733616536393535356536222c226174223a22323032362d31322d30375431343a34353a35372e3533353534353534375a227d', '{"time": "2026-12-07T14:45:57.535545547Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "fecc3364-9580-4076-af4e-4e750be5a93f", "correlation_id": "01a250f7-f69d-7e9b-a1de-515491ab9f70"}');
INSERT INTO public.events VALUES (72, '960', '01a250f7-f6a1-7e5b-8663-8d534e596c00', 'execution-01a250f7-f6a1-724e-9c2c-6a6869953293', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663661312d373234652d396332632d366136383639393533323933222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2266656363333336342d393538302d343037362d616634652d346537353062653561393366222c226167656e745f6964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235222c22696e746567726174696f6e223a227574696c73222c22746f6f6c223a227574696c735f6563686f222c2273756363657373223a66616c73652c226572726f725f636f6465223a22544f4f4c5f4f4646222c226475726174696f6e5f6d73223a302c22617267735f73697a65223a33362c22617267735f736861323536223a2232386530653331396533313239366537613738616465303936623036313266666434386537633431626633653763353636383334363365663365666138373761222c22726573756c745f73697a65223a302c226174223a22323032362d31322d30375431343a34353a35372e3533373932363330365a227d', '{"time": "2026-12-07T14:45:57.537926306Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "fecc3364-9580-4076-af4e-4e750be5a93f", "correlation_id": "01a250f7-f6a1-724e-9c2c-6a6869953293"}');
INSERT INTO public.events VALUES (73, '962', '01a250f7-f6a6-7b63-adcb-75e9b02743dd', 'execution-01a250f7-f6a4-7a5e-8f3d-b0beb8a1a111', 1, 'execution.tool_executed', 1, '\x7b22657865637574696f6e5f6964223a2230316132353066372d663661342d376135652d386633642d623062656238613161313131222c22757365725f6964223a2233333763353838642d303039612d343134622d396334302d663830313762623163336534222c22766961223a226170695f6b6579222c22636c69656e745f6964223a2266656363333336342d393538302d343037362d616634652d346537353062653561393366222c226167656e745f6964223a2230316132353066372d663532622d373239662d626662352d626131393061653162656235222c22696e746567726174696f6e223a226d63705f61636d652d746f6f6c735f3431353831323839222c22746f6f6c223a2261636d65746f6f6c735f77686f616d69222c2273756363657373223a747275652c226475726174696f6e5f6d73223a322c22617267735f73697a65223a31312c22617267735f736861323536223a2236336265376534316530323062633030656531633739323639323937333063366630613062396330633364383334323763373665623561636662613864633637222c22726573756c745f73697a65223a35382c22726573756c745f736861323536223a2232306464613338663962393734626262316434663661396666363365646461303237316564353364653332316536623538353964333264386436646663306131222c226174223a22323032362d31322d30375431343a34353a35372e3534323733363636385a227d', '{"time": "2026-12-07T14:45:57.542736668Z", "actor": "337c588d-009a-414b-9c40-f8017bb1c3e4", "mcp_client": "fecc3364-9580-4076-af4e-4e750be5a93f", "correlation_id": "01a250f7-f6a4-7a5e-8f3d-b0beb8a1a111"}');
INSERT INTO public.events VALUES (74, '965', 'adb6a834-3152-4afc-864f-4242bb069df6', 'mcp-session-pSmP7rU6-E9CPYKYrg8Wkw', 1, 'mcp.session_ended', 1, '\x7b2273657373696f6e5f6964223a2270536d50377255362d45394350594b59726738576b77222c22657870697265735f6174223a22323032362d31322d31345431343a34353a35375a222c226174223a22323032362d31322d30375431343a34353a35372e3537313530363935355a227d', '{"time": "2026-12-07T14:45:57.571506955Z", "actor": "mcp"}');
INSERT INTO public.events VALUES (75, '967', '95b89916-edc5-4ebf-9898-a6f44dc95827', 'mcp-session-Hs9ZNTJ71zce89cyjU90ww', 1, 'mcp.session_ended', 1, '\x7b2273657373696f6e5f6964223a224873395a4e544a37317a6365383963796a5539307777222c22657870697265735f6174223a22323032362d31322d31345431343a34353a35375a222c226174223a22323032362d31322d30375431343a34353a35372e3537373135323230365a227d', '{"time": "2026-12-07T14:45:57.577152206Z", "actor": "mcp"}');


--
-- Data for Name: guild_members; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.guild_members VALUES ('01a250f7-f51e-794e-b2ac-eca67fb3ae73', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '01a250f7-f50e-7cee-b20d-95066a3d4d06', '2026-12-07T14:45:57.154572532Z');


--
-- Data for Name: guilds; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.guilds VALUES ('01a250f7-f51e-794e-b2ac-eca67fb3ae73', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'Research', '2026-12-07T14:45:57.150610181Z');


--
-- Data for Name: jot_blobs; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: jot_claims; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: jot_files; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: jots; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: mcp_connections; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mcp_connections VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 'mcp_remote', 'organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'connected', '', 0, '2026-12-07T14:45:57.334963267Z', '2026-12-07T14:45:57.325051494Z', '2026-12-07T14:45:57.325051494Z', NULL, 2, '{"login_id":"01a250f7-f5c6-72c7-954d-451ad16d691d","server_id":"mcp_remote","owner":{"scope":"organization","id":"01a250f7-f50e-7cee-b20d-95066a3d4d06"},"status":"connected","credential":{"subject":"mcp-login:01a250f7-f5c6-72c7-954d-451ad16d691d","key_version":1,"blob":"1sJJJBvj3K+a9JUH40rjp76icRc+p8dp825pxdOeKQVI61bjzu3ulV9VUzYZfwkE6qBK1zguk0j0F4aaLMvT61fTO/WBjhI="},"created_at":"2026-12-07T14:45:57.325051494Z","updated_at":"2026-12-07T14:45:57.325051494Z","tools":[{"name":"remote_create_issue","remote":"create_issue","description":"Open an issue.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"remote_echo","remote":"echo","description":"Echo the text back.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"remote_whoami","remote":"whoami","description":"Say which token called.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"remote_wipe_everything","remote":"wipe_everything","description":"Deletes all data.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"},"read_only_hint":false,"destructive_hint":true}],"digest":"e8ab274a05dd9c3fff57c28c90b8f8f8d53add751103ad15c892e8d9582d72b4","listed_at":"2026-12-07T14:45:57.334963267Z","seen":["remote_create_issue","remote_echo","remote_whoami","remote_wipe_everything"]}');
INSERT INTO public.mcp_connections VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 'mcp_acme-tools_41581289', 'agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'connected', '', 0, '2026-12-07T14:45:57.391110073Z', '2026-12-07T14:45:57.377046827Z', '2026-12-07T14:45:57.377046827Z', NULL, 2, '{"login_id":"01a250f7-f5fa-7b18-8558-d34d66f655f5","server_id":"mcp_acme-tools_41581289","owner":{"scope":"agent","id":"01a250f7-f52b-729f-bfb5-ba190ae1beb5"},"status":"connected","credential":{"subject":"mcp-login:01a250f7-f5fa-7b18-8558-d34d66f655f5","key_version":1,"blob":"uxW3Ojr1uFYHGS9CtYzgV87o+oeAKVR5R5jAFRc43VklGE46cH5GqF32NEkiCUeglJmbQaxvCcnrJ7zCm1UeyKjUUyjCntsC/w=="},"created_at":"2026-12-07T14:45:57.377046827Z","updated_at":"2026-12-07T14:45:57.377046827Z","tools":[{"name":"acmetools_create_issue","remote":"create_issue","description":"Open an issue.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"acmetools_echo","remote":"echo","description":"Echo the text back.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"acmetools_whoami","remote":"whoami","description":"Say which token called.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}},{"name":"acmetools_wipe_everything","remote":"wipe_everything","description":"Deletes all data.","input_schema":{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"},"read_only_hint":false,"destructive_hint":true}],"digest":"c09eaf8ef7ac82f6f4ce37cc93fa3137e975c15a37bda887ca6d48841a091f88","listed_at":"2026-12-07T14:45:57.391110073Z","seen":["acmetools_create_issue","acmetools_echo","acmetools_whoami","acmetools_wipe_everything"]}');


--
-- Data for Name: mcp_ended_sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mcp_ended_sessions VALUES ('pSmP7rU6-E9CPYKYrg8Wkw', '2026-12-14T14:45:57.000000000Z');
INSERT INTO public.mcp_ended_sessions VALUES ('Hs9ZNTJ71zce89cyjU90ww', '2026-12-14T14:45:57.000000000Z');


--
-- Data for Name: mcp_tool_listings; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mcp_tool_listings VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 2, 'mcp_remote', 'e8ab274a05dd9c3fff57c28c90b8f8f8d53add751103ad15c892e8d9582d72b4', '', '{"added":["remote_create_issue","remote_echo","remote_whoami","remote_wipe_everything"]}', 4, '2026-12-07T14:45:57.334963267Z');
INSERT INTO public.mcp_tool_listings VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 2, 'mcp_acme-tools_41581289', 'c09eaf8ef7ac82f6f4ce37cc93fa3137e975c15a37bda887ca6d48841a091f88', '', '{"added":["acmetools_create_issue","acmetools_echo","acmetools_whoami","acmetools_wipe_everything"]}', 4, '2026-12-07T14:45:57.391110073Z');


--
-- Data for Name: mcp_tool_switches; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mcp_tool_switches VALUES ('organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'mcp_remote', 'remote_create_issue', 0, 'writing_verb', '', '2026-12-07T14:45:57.334963267Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'mcp_remote', 'remote_echo', 1, 'default_on', '154d65d3a5b2b5e7', '2026-12-07T14:45:57.334963267Z', '8119467125cc24cd');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'mcp_acme-tools_41581289', 'acmetools_create_issue', 0, 'writing_verb', '', '2026-12-07T14:45:57.391110073Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'mcp_acme-tools_41581289', 'acmetools_whoami', 1, 'default_on', '7676f1bc6694c5e6', '2026-12-07T14:45:57.391110073Z', '8119467125cc24cd');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'mcp_acme-tools_41581289', 'acmetools_wipe_everything', 0, 'destructive_hint', '', '2026-12-07T14:45:57.391110073Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('platform', '00000000-0000-0000-0000-000000000000', 'plugin:utils', 'utils_time', 0, 'set', '', '2026-12-07T14:45:57.409306138Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'plugin:utils', 'utils_echo', 0, 'set', '', '2026-12-07T14:45:57.417644632Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'plugin:github', 'github_list_repos', 0, 'set', '', '2026-12-07T14:45:57.425334164Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f531-72e6-9aa7-d6e8ac4da9a4', 'plugin:github', 'github_create_issue', 1, 'set', '', '2026-12-07T14:45:57.434347198Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('platform', '00000000-0000-0000-0000-000000000000', 'mcp_remote', 'remote_create_issue', 0, 'set', '', '2026-12-07T14:45:57.443681241Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'mcp_remote', 'remote_whoami', 0, 'set', '', '2026-12-07T14:45:57.450590916Z', '');
INSERT INTO public.mcp_tool_switches VALUES ('organization', '01a250f7-f50e-7cee-b20d-95066a3d4d06', 'mcp_remote', 'remote_wipe_everything', 1, 'set', 'bf4e2dac8cbd775f', '2026-12-07T14:45:57.459151465Z', '6be132243b57dd62');
INSERT INTO public.mcp_tool_switches VALUES ('agent', '01a250f7-f52b-729f-bfb5-ba190ae1beb5', 'mcp_acme-tools_41581289', 'acmetools_echo', 0, 'set', '', '2026-12-07T14:45:57.466193097Z', '');


--
-- Data for Name: mcp_tools; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.mcp_tools VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 'mcp_remote', 'remote_create_issue', 'create_issue', 'Open an issue.', 'aac0ff33acbbf5e6', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 'mcp_remote', 'remote_echo', 'echo', 'Echo the text back.', '154d65d3a5b2b5e7', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 'mcp_remote', 'remote_whoami', 'whoami', 'Say which token called.', '7676f1bc6694c5e6', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5c6-72c7-954d-451ad16d691d', 'mcp_remote', 'remote_wipe_everything', 'wipe_everything', 'Deletes all data.', 'bf4e2dac8cbd775f', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', 0, 1, '6be132243b57dd62', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 'mcp_acme-tools_41581289', 'acmetools_create_issue', 'create_issue', 'Open an issue.', 'aac0ff33acbbf5e6', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 'mcp_acme-tools_41581289', 'acmetools_echo', 'echo', 'Echo the text back.', '154d65d3a5b2b5e7', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 'mcp_acme-tools_41581289', 'acmetools_whoami', 'whoami', 'Say which token called.', '7676f1bc6694c5e6', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', NULL, NULL, '8119467125cc24cd', '');
INSERT INTO public.mcp_tools VALUES ('01a250f7-f5fa-7b18-8558-d34d66f655f5', 'mcp_acme-tools_41581289', 'acmetools_wipe_everything', 'wipe_everything', 'Deletes all data.', 'bf4e2dac8cbd775f', '{"additionalProperties":false,"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}', 0, 1, '6be132243b57dd62', '');


--
-- Data for Name: oauth_access_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: oauth_clients; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: oauth_grants; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: oauth_refresh_tokens; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: org_invitations; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: org_members; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.org_members VALUES ('e3bc2739-3746-539b-b242-bd68dac575ad', '2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', '', 'owner', '2026-12-07T14:45:57.063976835Z');
INSERT INTO public.org_members VALUES ('d47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', '337c588d-009a-414b-9c40-f8017bb1c3e4', '', 'owner', '2026-12-07T14:45:57.113306348Z');
INSERT INTO public.org_members VALUES ('f19a44ab-5c26-5a36-a84a-613f76fc15dc', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '', 'owner', '2026-12-07T14:45:57.125499261Z');
INSERT INTO public.org_members VALUES ('01a250f7-f50e-7cee-b20d-95066a3d4d06', '337c588d-009a-414b-9c40-f8017bb1c3e4', '', 'owner', '2026-12-07T14:45:57.134862048Z');
INSERT INTO public.org_members VALUES ('01a250f7-f50e-7cee-b20d-95066a3d4d06', '0ec0c20d-2950-427e-aa23-e594cd3aa304', '', 'member', '2026-12-07T14:45:57.145525635Z');


--
-- Data for Name: organizations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.organizations VALUES ('e3bc2739-3746-539b-b242-bd68dac575ad', 'Personal', 1, '2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', '2026-12-07T14:45:57.063976835Z');
INSERT INTO public.organizations VALUES ('d47cd6a5-27c6-59d3-a8b8-7512b6d3f14a', 'Personal', 1, '337c588d-009a-414b-9c40-f8017bb1c3e4', '2026-12-07T14:45:57.113306348Z');
INSERT INTO public.organizations VALUES ('f19a44ab-5c26-5a36-a84a-613f76fc15dc', 'Personal', 1, '0ec0c20d-2950-427e-aa23-e594cd3aa304', '2026-12-07T14:45:57.125499261Z');
INSERT INTO public.organizations VALUES ('01a250f7-f50e-7cee-b20d-95066a3d4d06', 'Acme', 0, '337c588d-009a-414b-9c40-f8017bb1c3e4', '2026-12-07T14:45:57.134862048Z');


--
-- Data for Name: platform_keys; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: portal_ended_sessions; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: portal_sessions_cut; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: projection_checkpoints; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.projection_checkpoints VALUES ('connector_calls', '00000000000000000773', '00000000000000000003', '2026-12-07 14:45:57.014915+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('platform_keys', '00000000000000000773', '00000000000000000003', '2026-12-07 14:45:57.023808+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('oauth', '00000000000000000778', '00000000000000000004', '2026-12-07 14:45:57.030422+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('portal_sessions', '00000000000000000778', '00000000000000000004', '2026-12-07 14:45:57.031004+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('jots', '00000000000000000778', '00000000000000000004', '2026-12-07 14:45:57.041456+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('connectors', '00000000000000000935', '00000000000000000061', '2026-12-07 14:45:57.468127+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('organizations', '00000000000000000850', '00000000000000000032', '2026-12-07 14:45:57.177059+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('connections', '00000000000000000944', '00000000000000000065', '2026-12-07 14:45:57.491336+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('identity', '00000000000000000856', '00000000000000000034', '2026-12-07 14:45:57.188905+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('audit', '00000000000000000967', '00000000000000000075', '2026-12-07 14:45:57.577258+00', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO public.projection_checkpoints VALUES ('mcp_sessions', '00000000000000000967', '00000000000000000075', '2026-12-07 14:45:57.58184+00', NULL, NULL, NULL, NULL, NULL, NULL);


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, 'events', '581e03d299bdc65d8bd8ea9762e7d147c62bc16639904e5649ac3d154b4fcc9a', '2026-12-07T14:45:56.602295043Z');
INSERT INTO public.schema_migrations VALUES (2, 'events_append_only', '4e66fee6fe868e96e8bc1c0bbf01c98326221011508df4d3693c46fbe4fddfaf', '2026-12-07T14:45:56.608844426Z');
INSERT INTO public.schema_migrations VALUES (10, 'vault', '9b49708a4ca5423374a3dae4f7f05612d5cffbca1774de4e803a48882bf36c2b', '2026-12-07T14:45:56.633044254Z');
INSERT INTO public.schema_migrations VALUES (20, 'projections', 'c0df104391c0bea592d3cd3a2e73e587e9d5b2a4327024ace5f59a28488bffdd', '2026-12-07T14:45:56.641006695Z');
INSERT INTO public.schema_migrations VALUES (21, 'identity', 'dff6cdff01ae8093d2eb6dad4c7c5b3b3c89c0e711b1c002a2e8acc669b43a87', '2026-12-07T14:45:56.664972146Z');
INSERT INTO public.schema_migrations VALUES (22, 'connections', '8afb8a889c16eeeb532e99ab287775f6d50794083bc16f1e423c2d09378c77c5', '2026-12-07T14:45:56.680978631Z');
INSERT INTO public.schema_migrations VALUES (23, 'audit', '6fe404fc7fe2a79356af8875f25c624242865a5601486ed65bff1c02a0ba239b', '2026-12-07T14:45:56.698987417Z');
INSERT INTO public.schema_migrations VALUES (30, 'bus', 'dc424a63180f639ba5a966a24c3d8e5bb8058207f570797228924158a9cad985', '2026-12-07T14:45:56.708906042Z');
INSERT INTO public.schema_migrations VALUES (40, 'mcp_sessions', 'b9911ea0f1445ac795ea6c92e737f7d8e795527b3ff2ebae505ab4de90fa5c08', '2026-12-07T14:45:56.720963642Z');
INSERT INTO public.schema_migrations VALUES (200, 'jots', 'ca0593ae5ea945ad8aa5a144463a3904014fdf3d8c822296826e413567a7260d', '2026-12-07T14:45:56.740412269Z');
INSERT INTO public.schema_migrations VALUES (201, 'jot_claims', '9ad6bb01f4cf74e18d0d4dfdcec5d8f5256d69684085d15a68a9f64ed69a40b8', '2026-12-07T14:45:56.744596912Z');
INSERT INTO public.schema_migrations VALUES (202, 'jot_blobs_touched', '242b7353e799ba9bf1b58983fe98fc81e09ec52f352c0cadc6666d2676800811', '2026-12-07T14:45:56.747126888Z');
INSERT INTO public.schema_migrations VALUES (300, 'oauth', 'f40840844e59afc419304dff4439977db8fac2cd85d5651b9d215f70de9c0f6a', '2026-12-07T14:45:56.760116138Z');
INSERT INTO public.schema_migrations VALUES (410, 'portal_sessions_ended', '28ce3940961b5e85781654c3de22b89ca34bd0e4c73b2a5dfb2d328e4ff8d456', '2026-12-07T14:45:56.765903577Z');
INSERT INTO public.schema_migrations VALUES (600, 'audit_chain', '7159f01c11b21e437b92e77644bb688bf5559ad3403594a321622f6be95f8414', '2026-12-07T14:45:56.784527291Z');
INSERT INTO public.schema_migrations VALUES (601, 'users_erased', '00aba74a31de5320253b43dffbc4146f275cf56df49dd53e006418f15ad2b671', '2026-12-07T14:45:56.785868997Z');
INSERT INTO public.schema_migrations VALUES (620, 'audit_admin', '1a33c7e7464c1d5c84fa0a9d06bef70b8f1c13342e3ef2f89c070a3081a3e49d', '2026-12-07T14:45:56.787453125Z');
INSERT INTO public.schema_migrations VALUES (621, 'audit_sink', '923d237b072d40eb62f60f9b1c1a30d56d4c27ea5e228aac096cc1233b0dbae4', '2026-12-07T14:45:56.79034168Z');
INSERT INTO public.schema_migrations VALUES (700, 'organizations', '65891f644ab3fba74fbf1e435599c1e20824f443c5634812a172e249b3dc597e', '2026-12-07T14:45:56.813163375Z');
INSERT INTO public.schema_migrations VALUES (701, 'credential_agents', '957012a8fbd3facca5057d2ccba7d1c46230362caf39de4e2e911f57c8a66170', '2026-12-07T14:45:56.814477219Z');
INSERT INTO public.schema_migrations VALUES (720, 'connectors', '655cccb98049d6972e30690dcd1d7a195c7224d6f6060024fb85c5c9ddf7772a', '2026-12-07T14:45:56.825672208Z');
INSERT INTO public.schema_migrations VALUES (730, 'platform', '88ff3a0884c118442f014c65d9cbb057e1df728875be2cbd15a03a0d2317e94f', '2026-12-07T14:45:56.830667828Z');
INSERT INTO public.schema_migrations VALUES (760, 'connector_catalog', 'b8e6fc267600e7e8df37adec5e91e587999e3c569f0f01ddc5b3d5547f6bab1c', '2026-12-07T14:45:56.833502092Z');
INSERT INTO public.schema_migrations VALUES (770, 'tool_schema_sha', 'c05763e9ed23eb4df92354caffc58114e7ecf9accbca623d8446d3a70937f160', '2026-12-07T14:45:56.83472755Z');
INSERT INTO public.schema_migrations VALUES (780, 'mcp_tool_task_support', '7be831262947e426c8b6251465facbb1d135389e47b5a7e7c8553acbbe00564f', '2026-12-07T14:45:56.835620348Z');
INSERT INTO public.schema_migrations VALUES (790, 'invitee_hash', 'cd782d92cabbfe5c1db9043492e8312614c14fe1f4bffc745b835357f84a5c2a', '2026-12-07T14:45:56.836671701Z');


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.users VALUES ('2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', 'admin@workbench.localhost', '', '2026-12-07T14:45:57.060099493Z', NULL);
INSERT INTO public.users VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 'ada@example.com', '', '2026-12-07T14:45:57.091175604Z', NULL);
INSERT INTO public.users VALUES ('0ec0c20d-2950-427e-aa23-e594cd3aa304', 'bob@example.com', '', '2026-12-07T14:45:57.102758788Z', NULL);


--
-- Data for Name: vault_data_keys; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_data_keys VALUES ('vault:key-check', 1, '5c081874cbfaf9d5', '\x7822848280b691f06d6bd3b3e4f27c29d8969040cd3724e3058029d94b358f0bf1f83f8f409712f9ddd8cc346a24f4e50aac5e79e38cc49e917be876a5f1dd2e', '2026-12-07 14:45:56.850278+00');
INSERT INTO public.vault_data_keys VALUES ('workbench-derived-keys', 1, '5c081874cbfaf9d5', '\xb2132bae21bda9ad157fbe32e2133cbfd51e9b7a3dc08e3505e249e852671a8d008bccf7c8c46743b337319f375572c88c375907fee9bcffe88c10eabe8d4e67', '2026-12-07 14:45:56.853072+00');
INSERT INTO public.vault_data_keys VALUES ('audit:seal-key', 1, '5c081874cbfaf9d5', '\x7be7a91d8c5e488b8d0ba17da814c8cae1b7c6f6a33859b2c49d45a1e69ce5ece74ac5aab1cadb27b39eb5f364593b21706a6a6d962b7c147962df6abc8546c4', '2026-12-07 14:45:56.968197+00');
INSERT INTO public.vault_data_keys VALUES ('2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', 1, '5c081874cbfaf9d5', '\x6f3e6ab9097041bc3cc74f71313fce1603e624f1d980f2b6ae23a55ea5368d68a340b00df7abc3fe406d0b681c2d0af32405972d641bba6587503b66545ce4d3', '2026-12-07 14:45:57.058025+00');
INSERT INTO public.vault_data_keys VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', 1, '5c081874cbfaf9d5', '\x67aff901e478eb93f0e637b74f46c828979be323fd66f249c5537cfbc7b4136a0d34e737103a7b0e51570f63a009c47d2ff69a1f1fde5e88ae4fa099f4241c17', '2026-12-07 14:45:57.089045+00');
INSERT INTO public.vault_data_keys VALUES ('0ec0c20d-2950-427e-aa23-e594cd3aa304', 1, '5c081874cbfaf9d5', '\xf69bd64c53197c560160d53f289e37f40344908128d40b61c9dc0c542a8369a266782ab3ecf463827f70292478a7adb71bf9d9f51ee577e431d35e47626c5fbe', '2026-12-07 14:45:57.10137+00');
INSERT INTO public.vault_data_keys VALUES ('invitee-83cc1eed720d2a89c0047a96688805a6de9a36172203a06d5f94f22014ebc52c', 1, '5c081874cbfaf9d5', '\xa228c3d788ed594edc7a5cdeabcda9547d93c887c0d5c16f6a37f1752df8062aa5ee0c7ece2007d6da6f3480f39fa6bf801b7d69865cfbff88f791c0fdc8069d', '2026-12-07 14:45:57.139997+00');
INSERT INTO public.vault_data_keys VALUES ('mcp-login:01a250f7-f5c6-72c7-954d-451ad16d691d', 1, '5c081874cbfaf9d5', '\xaf399e869e4034a5579f827413496229232c83ee920bd78e603594912fec7216e3793930db94d7b30340a9c4cf0a196de09345731407bc267f7826fbd1bcd997', '2026-12-07 14:45:57.321698+00');
INSERT INTO public.vault_data_keys VALUES ('mcp-login:01a250f7-f5fa-7b18-8558-d34d66f655f5', 1, '5c081874cbfaf9d5', '\x04bd3e3358b6c4956f0d87e9b7fe87254fb445815d5a345bcc552ef03c120be5a938df47f814e0a8081a85bef851ca24dbc8fc3930b90d5e92bc46a3ecf22d8e', '2026-12-07 14:45:57.372122+00');


--
-- Data for Name: vault_shred_checkpoint; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: vault_subjects; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.vault_subjects VALUES ('vault:key-check', NULL);
INSERT INTO public.vault_subjects VALUES ('workbench-derived-keys', NULL);
INSERT INTO public.vault_subjects VALUES ('audit:seal-key', NULL);
INSERT INTO public.vault_subjects VALUES ('2204ac8d-b6b5-439a-8aca-7f3a1d921ba4', NULL);
INSERT INTO public.vault_subjects VALUES ('337c588d-009a-414b-9c40-f8017bb1c3e4', NULL);
INSERT INTO public.vault_subjects VALUES ('0ec0c20d-2950-427e-aa23-e594cd3aa304', NULL);
INSERT INTO public.vault_subjects VALUES ('invitee-83cc1eed720d2a89c0047a96688805a6de9a36172203a06d5f94f22014ebc52c', NULL);
INSERT INTO public.vault_subjects VALUES ('mcp-login:01a250f7-f5c6-72c7-954d-451ad16d691d', NULL);
INSERT INTO public.vault_subjects VALUES ('mcp-login:01a250f7-f5fa-7b18-8558-d34d66f655f5', NULL);


--
-- Name: events_position_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.events_position_seq', 75, true);


--
-- Name: agents agents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_pkey PRIMARY KEY (agent_id);


--
-- Name: api_keys api_keys_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_hash_key UNIQUE (hash);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (key_id);


--
-- Name: audit_chain audit_chain_commit_pos_prepare_pos_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_chain
    ADD CONSTRAINT audit_chain_commit_pos_prepare_pos_key UNIQUE (commit_pos, prepare_pos);


--
-- Name: audit_chain audit_chain_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_chain
    ADD CONSTRAINT audit_chain_pkey PRIMARY KEY (seq);


--
-- Name: audit_records audit_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_records
    ADD CONSTRAINT audit_records_pkey PRIMARY KEY (event_id);


--
-- Name: audit_seal_keys audit_seal_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_seal_keys
    ADD CONSTRAINT audit_seal_keys_pkey PRIMARY KEY (id);


--
-- Name: audit_seals audit_seals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_seals
    ADD CONSTRAINT audit_seals_pkey PRIMARY KEY (seq);


--
-- Name: audit_sink_checkpoints audit_sink_checkpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_sink_checkpoints
    ADD CONSTRAINT audit_sink_checkpoints_pkey PRIMARY KEY (sink);


--
-- Name: audit_users audit_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_users
    ADD CONSTRAINT audit_users_pkey PRIMARY KEY (user_id);


--
-- Name: bus_relay_checkpoints bus_relay_checkpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.bus_relay_checkpoints
    ADD CONSTRAINT bus_relay_checkpoints_pkey PRIMARY KEY (name);


--
-- Name: connection_attempts connection_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.connection_attempts
    ADD CONSTRAINT connection_attempts_pkey PRIMARY KEY (attempt_id);


--
-- Name: connections connections_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.connections
    ADD CONSTRAINT connections_pkey PRIMARY KEY (user_id, integration);


--
-- Name: connector_calls connector_calls_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.connector_calls
    ADD CONSTRAINT connector_calls_pkey PRIMARY KEY (org_id, server_id, month);


--
-- Name: connectors connectors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.connectors
    ADD CONSTRAINT connectors_pkey PRIMARY KEY (id);


--
-- Name: connectors connectors_tool_prefix_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.connectors
    ADD CONSTRAINT connectors_tool_prefix_key UNIQUE (tool_prefix);


--
-- Name: events events_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_id_key UNIQUE (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY ("position");


--
-- Name: events events_stream_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_stream_version_key UNIQUE (stream, version);


--
-- Name: guild_members guild_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.guild_members
    ADD CONSTRAINT guild_members_pkey PRIMARY KEY (guild_id, user_id);


--
-- Name: guilds guilds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.guilds
    ADD CONSTRAINT guilds_pkey PRIMARY KEY (guild_id);


--
-- Name: jot_blobs jot_blobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jot_blobs
    ADD CONSTRAINT jot_blobs_pkey PRIMARY KEY (sha256);


--
-- Name: jot_claims jot_claims_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jot_claims
    ADD CONSTRAINT jot_claims_pkey PRIMARY KEY (name);


--
-- Name: jot_files jot_files_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jot_files
    ADD CONSTRAINT jot_files_pkey PRIMARY KEY (name, path);


--
-- Name: jots jots_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jots
    ADD CONSTRAINT jots_pkey PRIMARY KEY (name);


--
-- Name: mcp_connections mcp_connections_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_connections
    ADD CONSTRAINT mcp_connections_pkey PRIMARY KEY (id);


--
-- Name: mcp_connections mcp_connections_server_id_owner_scope_owner_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_connections
    ADD CONSTRAINT mcp_connections_server_id_owner_scope_owner_id_key UNIQUE (server_id, owner_scope, owner_id);


--
-- Name: mcp_ended_sessions mcp_ended_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_ended_sessions
    ADD CONSTRAINT mcp_ended_sessions_pkey PRIMARY KEY (session_id);


--
-- Name: mcp_tool_listings mcp_tool_listings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_tool_listings
    ADD CONSTRAINT mcp_tool_listings_pkey PRIMARY KEY (login_id, stream_version);


--
-- Name: mcp_tool_switches mcp_tool_switches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_tool_switches
    ADD CONSTRAINT mcp_tool_switches_pkey PRIMARY KEY (scope, scope_id, server_id, tool);


--
-- Name: mcp_tools mcp_tools_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mcp_tools
    ADD CONSTRAINT mcp_tools_pkey PRIMARY KEY (login_id, name);


--
-- Name: oauth_access_tokens oauth_access_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_access_tokens
    ADD CONSTRAINT oauth_access_tokens_pkey PRIMARY KEY (signature);


--
-- Name: oauth_clients oauth_clients_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_clients
    ADD CONSTRAINT oauth_clients_pkey PRIMARY KEY (client_id);


--
-- Name: oauth_grants oauth_grants_code_signature_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_code_signature_key UNIQUE (code_signature);


--
-- Name: oauth_grants oauth_grants_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_grants
    ADD CONSTRAINT oauth_grants_pkey PRIMARY KEY (request_id);


--
-- Name: oauth_refresh_tokens oauth_refresh_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.oauth_refresh_tokens
    ADD CONSTRAINT oauth_refresh_tokens_pkey PRIMARY KEY (signature);


--
-- Name: org_invitations org_invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_invitations
    ADD CONSTRAINT org_invitations_pkey PRIMARY KEY (org_id, email);


--
-- Name: org_members org_members_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_members
    ADD CONSTRAINT org_members_pkey PRIMARY KEY (org_id, user_id);


--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (org_id);


--
-- Name: platform_keys platform_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.platform_keys
    ADD CONSTRAINT platform_keys_pkey PRIMARY KEY (name);


--
-- Name: portal_ended_sessions portal_ended_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.portal_ended_sessions
    ADD CONSTRAINT portal_ended_sessions_pkey PRIMARY KEY (session_id);


--
-- Name: portal_sessions_cut portal_sessions_cut_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.portal_sessions_cut
    ADD CONSTRAINT portal_sessions_cut_pkey PRIMARY KEY (user_id);


--
-- Name: projection_checkpoints projection_checkpoints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.projection_checkpoints
    ADD CONSTRAINT projection_checkpoints_pkey PRIMARY KEY (name);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: users users_email_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_email_key UNIQUE (email);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (user_id);


--
-- Name: vault_data_keys vault_data_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_data_keys
    ADD CONSTRAINT vault_data_keys_pkey PRIMARY KEY (subject, version);


--
-- Name: vault_shred_checkpoint vault_shred_checkpoint_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_shred_checkpoint
    ADD CONSTRAINT vault_shred_checkpoint_pkey PRIMARY KEY (id);


--
-- Name: vault_subjects vault_subjects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.vault_subjects
    ADD CONSTRAINT vault_subjects_pkey PRIMARY KEY (subject);


--
-- Name: agents_org; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_org ON public.agents USING btree (org_id);


--
-- Name: agents_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_owner ON public.agents USING btree (owner_id);


--
-- Name: api_keys_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_user ON public.api_keys USING btree (user_id);


--
-- Name: audit_records_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_records_position ON public.audit_records USING btree (commit_pos, prepare_pos);


--
-- Name: audit_records_user_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_records_user_position ON public.audit_records USING btree (user_id, commit_pos, prepare_pos);


--
-- Name: connection_attempts_ended; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX connection_attempts_ended ON public.connection_attempts USING btree (ended_at);


--
-- Name: connectors_owner_org; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX connectors_owner_org ON public.connectors USING btree (owner_org_id);


--
-- Name: events_xid_position; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_xid_position ON public.events USING btree (xid, "position");


--
-- Name: guild_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX guild_members_user ON public.guild_members USING btree (user_id);


--
-- Name: guilds_org; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX guilds_org ON public.guilds USING btree (org_id);


--
-- Name: jot_blobs_touched_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jot_blobs_touched_at ON public.jot_blobs USING btree (touched_at);


--
-- Name: jot_claims_creator; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jot_claims_creator ON public.jot_claims USING btree (creator);


--
-- Name: jot_claims_expires_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jot_claims_expires_at ON public.jot_claims USING btree (expires_at);


--
-- Name: jots_creator; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jots_creator ON public.jots USING btree (creator);


--
-- Name: mcp_connections_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_connections_owner ON public.mcp_connections USING btree (owner_scope, owner_id);


--
-- Name: mcp_connections_server; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_connections_server ON public.mcp_connections USING btree (server_id);


--
-- Name: mcp_tool_switches_server; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX mcp_tool_switches_server ON public.mcp_tool_switches USING btree (server_id);


--
-- Name: oauth_access_tokens_request; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_access_tokens_request ON public.oauth_access_tokens USING btree (request_id);


--
-- Name: oauth_grants_user_client; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_grants_user_client ON public.oauth_grants USING btree (user_id, client_id);


--
-- Name: oauth_refresh_tokens_request; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX oauth_refresh_tokens_request ON public.oauth_refresh_tokens USING btree (request_id);


--
-- Name: org_invitations_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_invitations_email ON public.org_invitations USING btree (email);


--
-- Name: org_members_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX org_members_user ON public.org_members USING btree (user_id);


--
-- Name: organizations_created_by; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX organizations_created_by ON public.organizations USING btree (created_by);


--
-- Name: portal_ended_sessions_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX portal_ended_sessions_expiry ON public.portal_ended_sessions USING btree (expires_at);


--
-- Name: events events_append_only_row; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_append_only_row BEFORE DELETE OR UPDATE ON public.events FOR EACH ROW EXECUTE FUNCTION public.events_refuse_change();


--
-- Name: events events_append_only_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER events_append_only_truncate BEFORE TRUNCATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION public.events_refuse_change();


--
-- PostgreSQL database dump complete
--


