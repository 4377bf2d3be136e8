package vault

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
)

var (
	// ErrShredded says the subject was shredded: its data keys are gone and none of its secrets will
	// ever open again, nor can new ones be sealed for it.
	ErrShredded = errors.New("vault: subject was shredded")
	// ErrTampered says a blob failed authentication: it was altered, or it was copied to another
	// subject, key version or purpose than the one it was sealed for. AES-GCM cannot tell these apart.
	ErrTampered = errors.New("vault: sealed data failed authentication (altered, or bound to another subject, key version or purpose)")
	// ErrNoDataKey says the subject has no data key of the version a blob names, and was never shredded:
	// the blob comes from another database, or names a version that was never created.
	ErrNoDataKey = errors.New("vault: no such data key")
	// ErrMasterKeyMissing is matched (errors.Is) by every *MasterKeyMissingError.
	ErrMasterKeyMissing = errors.New("vault: master key missing")
)

// MasterKeyMissingError says a data key is sealed under a master key the vault was not given: neither
// ENCRYPTION_KEY nor any key in ENCRYPTION_KEY_PREVIOUS.
type MasterKeyMissingError struct {
	Subject  string
	Version  int
	MasterID string // the id of the master key that sealed the data key
	Current  string // the id of the vault's current master key
}

func (e *MasterKeyMissingError) Error() string {
	return fmt.Sprintf("vault: data key %d of subject %q is sealed under master key id %s, which is neither %s (id %s) "+
		"nor in %s: set the key with id %s in %s", e.Version, e.Subject, e.MasterID, EnvKey, e.Current, EnvPreviousKey,
		e.MasterID, EnvPreviousKey)
}

func (e *MasterKeyMissingError) Is(target error) bool { return target == ErrMasterKeyMissing }

// Options tune a Vault. A nil *Options means the defaults.
type Options struct {
	// CacheTTL is how long an unsealed data key stays in memory. Default 30s; a negative value
	// disables the cache. Another replica's shred takes effect here at the latest after CacheTTL, at
	// once when the server calls Forget on the shred event.
	CacheTTL time.Duration
	// RotateBatchSize is how many data keys Rotate re-seals per transaction. Default 500.
	RotateBatchSize int
	// OnRotateProgress, when set, is called after each batch Rotate commits, with the number of data
	// keys re-sealed so far and the number that needed re-sealing when Rotate started.
	OnRotateProgress func(resealed, total int)
	// Logger receives the vault's few log lines (never a secret). Default: discard.
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// WriteGate, when set, is held around every write to the key tables: on SQLite, the gate every
	// writer of the file shares (eventstore/sqlite.WriteGate), so the vault's transactions queue in Go
	// instead of in SQLite's busy handler. nil on PostgreSQL.
	WriteGate WriteGate
	// OnFailure, when set, is told of every Seal or Open that fails for another reason than a shredded
	// subject (op is "seal" or "open", reason one of FailureReasons); the server counts them in a
	// metric. It is never given the secret or the subject.
	OnFailure func(op, reason string)
}

// FailureReasons are the reasons OnFailure reports: a blob that failed authentication, a data key
// sealed under a master key the vault was not given, and anything else (the key table unreachable).
var FailureReasons = []string{"tampered", "master_key_missing", "error"}

// failed reports err to OnFailure unless it is nil or a shred (an expected end of a subject's data).
func (v *Vault) failed(op string, err error) {
	if err == nil || v.onFailure == nil || errors.Is(err, ErrShredded) {
		return
	}
	reason := "error"
	switch {
	case errors.Is(err, ErrTampered):
		reason = "tampered"
	case errors.Is(err, ErrMasterKeyMissing):
		reason = "master_key_missing"
	}
	v.onFailure(op, reason)
}

// WriteGate serializes the writers of one database inside the process; eventstore/sqlite.WriteGate
// is one.
type WriteGate interface {
	// Lock waits for the gate or for ctx to end (returning its error).
	Lock(ctx context.Context) error
	// Unlock releases the gate.
	Unlock()
}

// Vault seals and opens secrets with per-subject data keys, shreds subjects and rotates master keys.
// It is safe for concurrent use.
type Vault struct {
	keys    *keyStore
	store   eventstore.Store
	current MasterKey
	masters map[string]MasterKey // by id: current and previous

	ttl       time.Duration
	batchSize int
	progress  func(resealed, total int)
	log       *slog.Logger
	now       func() time.Time
	onFailure func(op, reason string)

	mu    sync.Mutex
	cache map[string]*subjectKeys
}

// subjectKeys is what the cache holds for one subject: its unsealed data keys by version.
type subjectKeys struct {
	keys    map[int][]byte
	errs    map[int]error // versions whose data key could not be unsealed (e.g. master key missing)
	latest  int
	expires time.Time
}

// New returns a Vault that keeps data keys in db (migrated with migrations 0010, SQLite through
// modernc.org/sqlite or PostgreSQL through pgx's stdlib driver), appends shred events to store, seals
// new data keys under current and still opens those sealed under any of previous.
func New(db *sql.DB, store eventstore.Store, current MasterKey, previous []MasterKey, opts *Options) (*Vault, error) {
	if db == nil {
		return nil, errors.New("vault: nil database")
	}
	if store == nil {
		return nil, errors.New("vault: nil event store")
	}
	if current.IsZero() {
		return nil, fmt.Errorf("vault: no current master key (%s)", EnvKey)
	}
	if opts == nil {
		opts = &Options{}
	}
	v := &Vault{
		keys:      &keyStore{db: db, gate: opts.WriteGate},
		store:     store,
		current:   current,
		masters:   map[string]MasterKey{current.ID(): current},
		ttl:       opts.CacheTTL,
		batchSize: opts.RotateBatchSize,
		progress:  opts.OnRotateProgress,
		log:       opts.Logger,
		now:       opts.Now,
		onFailure: opts.OnFailure,
		cache:     map[string]*subjectKeys{},
	}
	for _, p := range previous {
		if p.IsZero() {
			return nil, fmt.Errorf("vault: empty previous master key (%s)", EnvPreviousKey)
		}
		if _, dup := v.masters[p.ID()]; !dup {
			v.masters[p.ID()] = p
		}
	}
	if v.ttl == 0 {
		v.ttl = 30 * time.Second
	}
	if v.batchSize <= 0 {
		v.batchSize = 500
	}
	if v.log == nil {
		v.log = slog.New(slog.DiscardHandler)
	}
	if v.now == nil {
		v.now = time.Now
	}
	return v, nil
}

// CurrentMasterID is the id of the master key new data keys are sealed under.
func (v *Vault) CurrentMasterID() string { return v.current.ID() }

// Seal encrypts plaintext with the subject's current data key, creating the subject's first data key
// when it has none. purpose names what the secret is for ("connection:github:credential"); Open must
// be given the same purpose.
func (v *Vault) Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error) {
	sealed, err := v.seal(ctx, subject, purpose, plaintext)
	v.failed("seal", err)
	return sealed, err
}

func (v *Vault) seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error) {
	if err := checkSubject(subject); err != nil {
		return domain.Sealed{}, err
	}
	if purpose == "" {
		return domain.Sealed{}, errors.New("vault: seal: empty purpose")
	}
	sk, err := v.subject(ctx, subject)
	if errors.Is(err, errNoKeys) {
		if err := v.createFirstKey(ctx, subject); err != nil {
			return domain.Sealed{}, fmt.Errorf("vault: seal for %q: %w", subject, err)
		}
		sk, err = v.subject(ctx, subject)
		if errors.Is(err, errNoKeys) { // shredded between the insert and the read
			err = v.whyNoKeys(ctx, subject)
		}
	}
	if err != nil {
		return domain.Sealed{}, fmt.Errorf("vault: seal for %q: %w", subject, err)
	}
	key, ok := sk.keys[sk.latest]
	if !ok {
		return domain.Sealed{}, fmt.Errorf("vault: seal for %q: %w", subject, sk.errs[sk.latest])
	}
	blob, err := sealBlob(key, plaintext, secretAD(subject, sk.latest, purpose))
	if err != nil {
		return domain.Sealed{}, err
	}
	return domain.Sealed{Subject: subject, KeyVersion: sk.latest, Blob: blob}, nil
}

// Open decrypts a sealed secret. It fails with ErrShredded when the subject was shredded, ErrTampered
// when the blob was altered or does not belong to sealed.Subject, sealed.KeyVersion and purpose, and a
// *MasterKeyMissingError when its data key is sealed under a master key the vault was not given.
//
// Open takes sealed.Subject on trust to pick the key: a caller that reads a Sealed from a row owned by
// someone must check that sealed.Subject names that owner (or put the row's identity in purpose).
func (v *Vault) Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error) {
	plain, err := v.open(ctx, sealed, purpose)
	v.failed("open", err)
	return plain, err
}

func (v *Vault) open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error) {
	if err := checkSubject(sealed.Subject); err != nil {
		return nil, err
	}
	if sealed.KeyVersion < 1 {
		return nil, fmt.Errorf("vault: open: key version %d: %w", sealed.KeyVersion, ErrTampered)
	}
	sk, err := v.subject(ctx, sealed.Subject)
	if err == nil && !sk.has(sealed.KeyVersion) {
		// A version newer than the cached set may have been created since: look again once.
		v.Forget(sealed.Subject)
		sk, err = v.subject(ctx, sealed.Subject)
	}
	if errors.Is(err, errNoKeys) {
		err = v.whyNoKeys(ctx, sealed.Subject)
	}
	if err != nil {
		return nil, fmt.Errorf("vault: open for %q: %w", sealed.Subject, err)
	}
	key, ok := sk.keys[sealed.KeyVersion]
	if !ok {
		if kerr, bad := sk.errs[sealed.KeyVersion]; bad {
			return nil, fmt.Errorf("vault: open for %q: %w", sealed.Subject, kerr)
		}
		return nil, fmt.Errorf("vault: open for %q: data key version %d: %w", sealed.Subject, sealed.KeyVersion, ErrNoDataKey)
	}
	plain, err := openBlob(key, sealed.Blob, secretAD(sealed.Subject, sealed.KeyVersion, purpose))
	if err != nil {
		return nil, fmt.Errorf("vault: open for %q: %w", sealed.Subject, err)
	}
	return plain, nil
}

// Forget drops the subject's data keys from the in-memory cache. The server calls it when the bus
// reports that a subject was shredded (possibly on another replica).
func (v *Vault) Forget(subject string) {
	v.mu.Lock()
	delete(v.cache, subject)
	v.mu.Unlock()
}

func (sk *subjectKeys) has(version int) bool {
	_, ok := sk.keys[version]
	_, bad := sk.errs[version]
	return ok || bad
}

// whyNoKeys explains why a subject has no data keys: ErrShredded, or ErrNoDataKey when it never had any.
func (v *Vault) whyNoKeys(ctx context.Context, subject string) error {
	shredded, err := v.keys.shredded(ctx, subject)
	switch {
	case err != nil:
		return err
	case shredded:
		return ErrShredded
	default:
		return ErrNoDataKey
	}
}

// errNoKeys says the key table holds no row for a subject.
var errNoKeys = errors.New("vault: subject has no data keys")

// subject returns the subject's unsealed data keys, from the cache while it is fresh.
func (v *Vault) subject(ctx context.Context, subject string) (*subjectKeys, error) {
	now := v.now()
	v.mu.Lock()
	sk, ok := v.cache[subject]
	v.mu.Unlock()
	if ok && now.Before(sk.expires) {
		return sk, nil
	}
	rows, err := v.keys.load(ctx, subject)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		v.Forget(subject)
		return nil, errNoKeys
	}
	sk = &subjectKeys{keys: map[int][]byte{}, errs: map[int]error{}, expires: now.Add(v.ttl)}
	for _, r := range rows {
		if r.version > sk.latest {
			sk.latest = r.version
		}
		key, err := v.unsealDataKey(r)
		if err != nil {
			sk.errs[r.version] = err
			continue
		}
		sk.keys[r.version] = key
	}
	if v.ttl > 0 {
		v.mu.Lock()
		v.cache[subject] = sk
		v.mu.Unlock()
	}
	return sk, nil
}

// unsealDataKey opens one row of the key table with the master key that sealed it.
func (v *Vault) unsealDataKey(r keyRow) ([]byte, error) {
	m, ok := v.masters[r.masterID]
	if !ok {
		return nil, &MasterKeyMissingError{Subject: r.subject, Version: r.version, MasterID: r.masterID, Current: v.current.ID()}
	}
	key, err := openBlob(m.key, r.sealedKey, dataKeyAD(r.subject, r.version, r.masterID))
	if err != nil {
		return nil, fmt.Errorf("vault: data key %d of subject %q does not open under master key id %s: %w",
			r.version, r.subject, r.masterID, err)
	}
	if len(key) != KeySize {
		return nil, fmt.Errorf("vault: data key %d of subject %q is %d bytes: %w", r.version, r.subject, len(key), ErrTampered)
	}
	return key, nil
}

// sealDataKey seals a data key under the current master key.
func (v *Vault) sealDataKey(subject string, version int, key []byte) ([]byte, error) {
	return sealBlob(v.current.key, key, dataKeyAD(subject, version, v.current.ID()))
}

// createFirstKey gives a subject data key version 1, unless it was shredded or another caller (or
// replica) got there first; the caller reloads the subject afterwards either way.
func (v *Vault) createFirstKey(ctx context.Context, subject string) error {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("random data key: %w", err)
	}
	sealed, err := v.sealDataKey(subject, 1, key)
	if err != nil {
		return err
	}
	return v.keys.insertFirst(ctx, keyRow{subject: subject, version: 1, masterID: v.current.ID(), sealedKey: sealed}, v.now().UTC())
}

// maxSubjectLen bounds a subject; it ends up in a stream name and in every blob's associated data.
const maxSubjectLen = 255

func checkSubject(subject string) error {
	switch {
	case subject == "":
		return errors.New("vault: empty subject")
	case len(subject) > maxSubjectLen:
		return fmt.Errorf("vault: subject is %d bytes, more than %d", len(subject), maxSubjectLen)
	case !utf8.ValidString(subject):
		return errors.New("vault: subject is not valid UTF-8")
	}
	return nil
}
