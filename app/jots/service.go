package jots

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/jotsrm"
)

// Reader is the read model the service and the jots host read live jots from (projections/jotsrm.Reader).
type Reader interface {
	Jot(ctx context.Context, name string) (jotsrm.Jot, error)
	File(ctx context.Context, name, path string) (jot.File, error)
	Files(ctx context.Context, name string) ([]jot.File, error)
	// Held counts the names user holds at a time: live jots and unexpired claims.
	Held(ctx context.Context, user uuid.UUID, at time.Time) (int, error)
	// Bytes is the size of user's live jots, leaving out the jot called except.
	Bytes(ctx context.Context, user uuid.UUID, except string) (int64, error)
	// LiveSums calls fn with every blob sum a live jot references.
	LiveSums(ctx context.Context, fn func(sum string)) error
}

// Waiter waits until a projection has applied the log up to a position (projections.Runner).
type Waiter interface {
	WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error
}

// Options wire a Service.
type Options struct {
	Store  eventstore.Store
	Blobs  BlobStore
	Reader Reader
	// Waiter, when set, is used after every change so the change is served (on this replica) by the
	// time the call returns. Without it the jots host may lag by the projection's delay.
	Waiter Waiter
	// PublicURL is SERVER_PUBLIC_URL, the base of upload URLs (e.g. https://workbench.example.com).
	PublicURL string
	// JotsOrigin is JOTS_ORIGIN, the base of the URLs jots are served at; empty means PublicURL. See
	// handlers/jotshttp for why a separate origin is better.
	JotsOrigin string
	Limits     Limits
	// BcryptCost hashes jot passwords (default bcrypt.DefaultCost).
	BcryptCost int
	// BcryptSlots bounds how many bcrypt computations run at once (default DefaultBcryptSlots()).
	BcryptSlots int
	// BlobGrace is how long a blob no live jot references is kept after it was last stored (default
	// DefaultBlobGrace); RunCollector also sweeps once per BlobGrace.
	BlobGrace time.Duration
	// BcryptWait is how long a password check waits for a slot before it is refused as busy (default
	// DefaultBcryptWait).
	BcryptWait time.Duration
	Logger     *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Service runs the jot use cases.
type Service struct {
	store      eventstore.Store
	blobs      BlobStore
	reader     Reader
	waiter     Waiter
	publicURL  string
	jotsOrigin string
	limits     Limits
	bcryptCost int
	bcrypt     bcryptSlots
	bcryptWait time.Duration
	blobGrace  time.Duration
	gcMu       sync.Mutex
	gcWake     chan struct{}
	log        *slog.Logger
	now        func() time.Time
}

var jotAgg = eventstore.Aggregate[jot.State, jot.Command, domain.Event]{
	Initial: jot.Initial, Evolve: jot.Evolve, Decide: jot.Decide,
	Codec: eventstore.NewJSONCodec(jot.Events()...),
}

// New builds a Service.
func New(opts Options) (*Service, error) {
	if opts.Store == nil || opts.Blobs == nil || opts.Reader == nil {
		return nil, errors.New("jots: Store, Blobs and Reader are required")
	}
	public, err := baseURL("SERVER_PUBLIC_URL", opts.PublicURL)
	if err != nil {
		return nil, err
	}
	origin := public
	if opts.JotsOrigin != "" {
		if origin, err = baseURL("JOTS_ORIGIN", opts.JotsOrigin); err != nil {
			return nil, err
		}
	}
	s := &Service{
		store: opts.Store, blobs: opts.Blobs, reader: opts.Reader, waiter: opts.Waiter,
		publicURL: public, jotsOrigin: origin, limits: opts.Limits.withDefaults(),
		bcryptCost: opts.BcryptCost, log: opts.Logger, now: opts.Now,
	}
	if s.bcryptCost == 0 {
		s.bcryptCost = bcrypt.DefaultCost
	}
	if opts.BcryptSlots <= 0 {
		opts.BcryptSlots = DefaultBcryptSlots()
	}
	s.bcrypt = make(bcryptSlots, opts.BcryptSlots)
	if s.bcryptWait = opts.BcryptWait; s.bcryptWait <= 0 {
		s.bcryptWait = DefaultBcryptWait
	}
	if s.blobGrace = opts.BlobGrace; s.blobGrace <= 0 {
		s.blobGrace = DefaultBlobGrace
	}
	s.gcWake = make(chan struct{}, 1)
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

func baseURL(setting, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", fmt.Errorf("jots: %s %q: want an origin such as https://jots.example.com", setting, raw)
	}
	return u.Scheme + "://" + u.Host, nil
}

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return s.limits }

// JotsOrigin is the origin jots are served from (JOTS_ORIGIN, else SERVER_PUBLIC_URL).
func (s *Service) JotsOrigin() string { return s.jotsOrigin }

// URL is where the jot called name is served.
func (s *Service) URL(name string) string { return s.jotsOrigin + "/j/" + name + "/" }

// UploadPath is the path of the upload endpoint for a jot and token, on the app's origin.
func UploadPath(name, token string) string { return "/jots/upload/" + name + "/" + token }

// uploadID is what the log keeps of an upload token: its sha256.
func uploadID(token string) string {
	s := sha256.Sum256([]byte(token))
	return hex.EncodeToString(s[:])
}

// SettingsInput is what a caller may change about access; nil fields are left alone.
type SettingsInput struct {
	Access   *string
	Password *string
	CORS     *bool
}

func (s *Service) patch(ctx context.Context, in SettingsInput) (jot.SettingsPatch, error) {
	var p jot.SettingsPatch
	if in.Access != nil {
		a := jot.Access(*in.Access)
		p.Access = &a
	}
	if in.Password != nil {
		h, err := s.hashPassword(ctx, *in.Password)
		if err != nil {
			return p, err
		}
		p.PasswordHash = &h
	}
	p.CORS = in.CORS
	return p, nil
}

// Ticket is what deploy_jot answers.
type Ticket struct {
	Name      string    `json:"name"`
	UploadURL string    `json:"upload_url"`
	ExpiresAt time.Time `json:"expires_at"`
	URL       string    `json:"url"`
}

// Deploy authorizes one upload for the jot called name, claiming the name for user when it is free.
func (s *Service) Deploy(ctx context.Context, user uuid.UUID, name string, settings SettingsInput, md eventstore.Metadata) (Ticket, error) {
	if err := jot.ValidateName(name); err != nil {
		return Ticket{}, err
	}
	p, err := s.patch(ctx, settings)
	if err != nil {
		return Ticket{}, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Ticket{}, fmt.Errorf("jots: upload token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.now().UTC()
	if err := s.checkCount(ctx, user, name, now); err != nil {
		return Ticket{}, err
	}
	res, err := eventstore.Execute(ctx, s.store, jot.StreamName(name), jotAgg,
		jot.Command(jot.AuthorizeUpload{Name: name, User: user, UploadID: uploadID(token), Patch: p, TTL: s.limits.UploadTTL, At: now}), withActor(md, user))
	if err != nil {
		return Ticket{}, err
	}
	// The claim is counted by the next deploy_jot once the read model has it.
	s.wait(ctx, res.Position)
	ev := res.Events[0].(jot.UploadAuthorized)
	return Ticket{Name: name, UploadURL: s.publicURL + UploadPath(name, token), ExpiresAt: ev.ExpiresAt, URL: s.URL(name)}, nil
}

// checkCount refuses a claim of a new name by a user who already holds Limits.MaxJotsPerUser names.
// A name the user already holds is not counted again. The count is the read model's, which the
// service waits for after every claim, so one client claiming in a loop is stopped at the limit;
// claims racing in parallel may pass it by the few that are in flight at once.
func (s *Service) checkCount(ctx context.Context, user uuid.UUID, name string, now time.Time) error {
	st, _, err := eventstore.LoadState(ctx, s.store, jot.StreamName(name), jotAgg)
	if err != nil {
		return err
	}
	if st.Holder(now) != uuid.Nil {
		return nil // the user's own name, or another's, which Decide refuses in its own words
	}
	n, err := s.reader.Held(ctx, user, now)
	if err != nil {
		return &domain.Error{Code: domain.CodeUnavailable, Message: "deploy_jot: could not count your jots; try again", Err: err}
	}
	if n >= s.limits.MaxJotsPerUser {
		return domain.Errorf(domain.CodeForbidden, "deploy_jot: you already hold %d jot names, the limit is %d (live jots, and names claimed with deploy_jot and not uploaded to, which are released %s after their last deploy_jot): delete a jot with delete_jot, or redeploy one of your names",
			n, s.limits.MaxJotsPerUser, s.limits.UploadTTL)
	}
	return nil
}

func withActor(md eventstore.Metadata, user uuid.UUID) eventstore.Metadata {
	if md.Actor == "" {
		md.Actor = user.String()
	}
	return md
}

// Deployment is what a successful upload answers.
type Deployment struct {
	Name       string     `json:"name"`
	URL        string     `json:"url"`
	Generation int64      `json:"generation"`
	Files      []jot.File `json:"files"`
	TotalBytes int64      `json:"total_bytes"`
	Warning    string     `json:"warning,omitempty"`
}

// Upload deploys the gzip tarball in body with the single-use token deploy_jot handed out. The token
// is checked before the body is read; the archive is extracted under the limits, its bodies stored,
// and one Deployed event switches them in. Any refusal leaves the jot as it was.
func (s *Service) Upload(ctx context.Context, name, token string, body io.Reader, md eventstore.Metadata) (Deployment, error) {
	if jot.ValidateName(name) != nil || token == "" {
		return Deployment{}, domain.Errorf(domain.CodeNotFound, "this upload URL is not valid; call deploy_jot for a new one")
	}
	id := uploadID(token)
	st, _, err := eventstore.LoadState(ctx, s.store, jot.StreamName(name), jotAgg)
	if err != nil {
		return Deployment{}, err
	}
	// Refuse a bad token before reading a byte of the body; Decide checks again when it appends.
	if _, err := jot.Decide(st, jot.Deploy{Name: name, UploadID: id, Files: []jot.File{placeholderFile}, At: s.now()}); err != nil && domain.ErrorCode(err) != domain.CodeInvalid {
		return Deployment{}, err
	}
	entries, err := Extract(body, s.limits)
	if err != nil {
		return Deployment{}, err
	}
	// The deploy replaces the jot's files, so its current files do not count against the quota.
	if err := s.checkQuota(ctx, st.Creator, name, entryBytes(entries)); err != nil {
		return Deployment{}, err
	}
	files, err := s.storeBodies(ctx, entries)
	if err != nil {
		return Deployment{}, err
	}
	md = withActor(md, st.Creator)
	res, err := eventstore.Execute(ctx, s.store, jot.StreamName(name), jotAgg,
		jot.Command(jot.Deploy{Name: name, UploadID: id, Files: files, MaxFiles: s.limits.MaxFiles, MaxBytes: s.limits.MaxBytes, At: s.now().UTC()}), md)
	if err != nil {
		return Deployment{}, err
	}
	s.wait(ctx, res.Position)
	if res.State.Generation > 1 {
		s.collectSoon() // a redeploy: the files it replaced may be unreferenced now
	}
	ev := res.Events[0].(jot.Deployed)
	d := Deployment{Name: name, URL: s.URL(name), Generation: ev.Generation, Files: ev.Files, TotalBytes: res.State.TotalBytes()}
	if _, ok := res.State.File("index.html"); !ok {
		d.Warning = "the archive has no index.html at its root, so " + d.URL + " itself answers 404; link to a file by its path"
	}
	return d, nil
}

func entryBytes(es []Entry) int64 {
	var n int64
	for _, e := range es {
		n += int64(len(e.Body))
	}
	return n
}

// checkQuota refuses a change that would bring user's live jots over Limits.QuotaBytes, before any
// body is stored: size is what the jot called name would hold afterwards, and the user's other live
// jots are counted from the read model.
func (s *Service) checkQuota(ctx context.Context, user uuid.UUID, name string, size int64) error {
	others, err := s.reader.Bytes(ctx, user, name)
	if err != nil {
		return &domain.Error{Code: domain.CodeUnavailable, Message: "could not add up the size of your jots; try again", Err: err}
	}
	if others+size > s.limits.QuotaBytes {
		return domain.Errorf(domain.CodeForbidden, "jot %q would hold %d bytes and your other jots hold %d: together more than your quota of %d bytes; delete a jot with delete_jot or make this one smaller",
			name, size, others, s.limits.QuotaBytes)
	}
	return nil
}

// placeholderFile lets the token pre-check run Decide with a valid manifest.
var placeholderFile = jot.File{Path: "index.html", SHA256: strings.Repeat("0", 64), ContentType: "text/html"}

// storeBodies writes every body to the blob store and returns the manifest.
func (s *Service) storeBodies(ctx context.Context, entries []Entry) ([]jot.File, error) {
	files := make([]jot.File, len(entries))
	for i, e := range entries {
		sum := SumOf(e.Body)
		if err := s.blobs.Put(ctx, sum, e.Body); err != nil {
			return nil, fmt.Errorf("jots: store %s: %w", e.Path, err)
		}
		files[i] = jot.File{Path: e.Path, Size: int64(len(e.Body)), SHA256: sum, ContentType: ContentType(e.Path)}
	}
	return files, nil
}

func (s *Service) wait(ctx context.Context, pos eventstore.Position) {
	if s.waiter == nil || pos.IsZero() {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.waiter.WaitForProjection(wctx, jotsrm.Name, pos); err != nil {
		s.log.WarnContext(ctx, "jots read model has not caught up; the change is recorded and will be served once it does", "position", pos.String(), "err", err)
	}
}

// FileInput is one file update_jot puts.
type FileInput struct {
	Path string
	Body []byte
}

// Update puts files into a live jot and/or changes its settings, with no upload.
func (s *Service) Update(ctx context.Context, user uuid.UUID, name string, put []FileInput, settings SettingsInput, md eventstore.Metadata) (Listing, error) {
	if err := jot.ValidateName(name); err != nil {
		return Listing{}, err
	}
	p, err := s.patch(ctx, settings)
	if err != nil {
		return Listing{}, err
	}
	entries := make([]Entry, len(put))
	for i, f := range put {
		if err := jot.ValidatePath(f.Path); err != nil {
			return Listing{}, err
		}
		if int64(len(f.Body)) > s.limits.MaxBytes {
			return Listing{}, domain.Errorf(domain.CodeInvalid, "%s: %d bytes is more than the %d-byte limit of a jot", f.Path, len(f.Body), s.limits.MaxBytes)
		}
		entries[i] = Entry(f)
	}
	sortEntries(entries)
	if len(entries) > 0 {
		st, _, err := eventstore.LoadState(ctx, s.store, jot.StreamName(name), jotAgg)
		if err != nil {
			return Listing{}, err
		}
		if st.Holder(s.now()) == user {
			// The jot after the update: its files, with those at the paths put replaced. Its names must
			// stay apart as an archive's must (see Extract), and its bytes within the quota.
			after := entryBytes(entries)
			put := make(map[string]bool, len(entries))
			names := namespace{}
			for _, e := range entries {
				put[e.Path] = true
			}
			for _, f := range st.Files {
				if !put[f.Path] {
					after += f.Size
					_ = names.add(f.Path, f.Path, false)
				}
			}
			for _, e := range entries {
				if err := names.add(e.Path, e.Path, false); err != nil {
					var ae *ArchiveError
					errors.As(err, &ae)
					return Listing{}, domain.Errorf(domain.CodeInvalid, "update_jot: %s", ae.Msg)
				}
			}
			if err := s.checkQuota(ctx, user, name, after); err != nil {
				return Listing{}, err
			}
		}
	}
	files, err := s.storeBodies(ctx, entries)
	if err != nil {
		return Listing{}, err
	}
	res, err := eventstore.Execute(ctx, s.store, jot.StreamName(name), jotAgg,
		jot.Command(jot.Update{Name: name, User: user, Put: files, Patch: p, MaxFiles: s.limits.MaxFiles, MaxBytes: s.limits.MaxBytes, At: s.now().UTC()}), withActor(md, user))
	if err != nil {
		return Listing{}, err
	}
	s.wait(ctx, res.Position)
	if len(put) > 0 {
		s.collectSoon() // a replaced file may be unreferenced now
	}
	return s.listing(res.State), nil
}

// Listing is what list_jot_files answers.
type Listing struct {
	Name       string     `json:"name"`
	URL        string     `json:"url"`
	Access     jot.Access `json:"access"`
	CORS       bool       `json:"cors"`
	Files      []jot.File `json:"files"`
	TotalBytes int64      `json:"total_bytes"`
}

func (s *Service) listing(st jot.State) Listing {
	files := st.Files
	if files == nil {
		files = []jot.File{}
	}
	return Listing{Name: st.Name, URL: s.URL(st.Name), Access: st.Settings.Access, CORS: st.Settings.CORS, Files: files, TotalBytes: st.TotalBytes()}
}

// ListFiles returns what the user's jot called name holds. Only its creator may list it. It reads the
// log, so it is exact even before the read model has caught up.
func (s *Service) ListFiles(ctx context.Context, user uuid.UUID, name string) (Listing, error) {
	if err := jot.ValidateName(name); err != nil {
		return Listing{}, err
	}
	st, _, err := eventstore.LoadState(ctx, s.store, jot.StreamName(name), jotAgg)
	if err != nil {
		return Listing{}, err
	}
	switch {
	case st.Creator == uuid.Nil:
		return Listing{}, domain.Errorf(domain.CodeNotFound, "there is no jot named %q", name)
	case st.Creator != user:
		return Listing{}, domain.Errorf(domain.CodeForbidden, "the jot name %q belongs to another user; only its creator can list its files", name)
	case !st.Live:
		return Listing{}, domain.Errorf(domain.CodeConflict, "jot %q has not been deployed yet: upload an archive to the URL deploy_jot returned first", name)
	}
	return s.listing(st), nil
}

// Delete takes the user's jot down and frees its name.
func (s *Service) Delete(ctx context.Context, user uuid.UUID, name string, md eventstore.Metadata) error {
	if err := jot.ValidateName(name); err != nil {
		return err
	}
	res, err := eventstore.Execute(ctx, s.store, jot.StreamName(name), jotAgg,
		jot.Command(jot.Delete{Name: name, User: user, At: s.now().UTC()}), withActor(md, user))
	if err != nil {
		return err
	}
	s.wait(ctx, res.Position)
	s.collectSoon()
	return nil
}

// Site is a live jot as the host serves it.
type Site = jotsrm.Jot

// Site returns the live jot called name, or an error matching projections/jotsrm.ErrNotFound.
func (s *Service) Site(ctx context.Context, name string) (Site, error) {
	return s.reader.Jot(ctx, name)
}

// File returns the manifest entry of path in the jot called name, or projections/jotsrm.ErrNotFound.
func (s *Service) File(ctx context.Context, name, path string) (jot.File, error) {
	return s.reader.File(ctx, name, path)
}

// Body returns a file's body from the blob store.
func (s *Service) Body(ctx context.Context, f jot.File) ([]byte, error) {
	return s.blobs.Get(ctx, f.SHA256)
}
