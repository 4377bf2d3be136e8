package jotsrm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "jots"

// Projection keeps jots and jot_files.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(jot.Events()...)}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "jot_files", "jots", "jot_claims")
}

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool {
	switch eventType {
	case jot.TypeUploadAuthorized, jot.TypeDeployed, jot.TypeUpdated, jot.TypeAccessChanged, jot.TypeDeleted:
		return true
	}
	return false
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	switch env.Type {
	case jot.TypeUploadAuthorized, jot.TypeDeployed, jot.TypeUpdated, jot.TypeAccessChanged, jot.TypeDeleted:
	default:
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case jot.UploadAuthorized:
		// Claims that expired before this one was made are dropped: a deterministic sweep, the same on
		// a rebuild.
		if _, err := tx.ExecContext(ctx, `DELETE FROM jot_claims WHERE expires_at <= $1`, dbtime.Format(e.AuthorizedAt)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM jot_claims WHERE name = $1`, e.Name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO jot_claims (name, creator, expires_at) VALUES ($1, $2, $3)`,
			e.Name, e.Creator.String(), dbtime.Format(e.ExpiresAt))
		return err
	case jot.Deployed:
		if _, err := tx.ExecContext(ctx, `DELETE FROM jots WHERE name = $1`, e.Name); err != nil {
			return err
		}
		at := dbtime.Format(e.DeployedAt)
		if _, err := tx.ExecContext(ctx, `INSERT INTO jots (name, creator, access, password_hash, cors, generation, version, deployed_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			e.Name, e.Creator.String(), string(e.Settings.Access), e.Settings.PasswordHash, boolInt(e.Settings.CORS),
			e.Generation, env.Version, at, at); err != nil {
			return err
		}
		return replaceFiles(ctx, tx, e.Name, e.Files)
	case jot.Updated:
		if err := touch(ctx, tx, e.Name, env.Version, e.UpdatedAt); err != nil {
			return err
		}
		return replaceFiles(ctx, tx, e.Name, e.Files)
	case jot.AccessChanged:
		_, err := tx.ExecContext(ctx, `UPDATE jots SET access = $1, password_hash = $2, cors = $3, version = $4, updated_at = $5 WHERE name = $6`,
			string(e.Settings.Access), e.Settings.PasswordHash, boolInt(e.Settings.CORS), env.Version, dbtime.Format(e.ChangedAt), e.Name)
		return err
	case jot.Deleted:
		if _, err := tx.ExecContext(ctx, `DELETE FROM jot_files WHERE name = $1`, e.Name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM jot_claims WHERE name = $1`, e.Name); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM jots WHERE name = $1`, e.Name)
		return err
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func touch(ctx context.Context, tx *sql.Tx, name string, version int64, at time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE jots SET version = $1, updated_at = $2 WHERE name = $3`, version, dbtime.Format(at), name)
	return err
}

func replaceFiles(ctx context.Context, tx *sql.Tx, name string, files []jot.File) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM jot_files WHERE name = $1`, name); err != nil {
		return err
	}
	if len(files) == 0 {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO jot_files (name, path, size, sha256, content_type) VALUES ($1, $2, $3, $4, $5)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, f := range files {
		if _, err := stmt.ExecContext(ctx, name, f.Path, f.Size, f.SHA256, f.ContentType); err != nil {
			return fmt.Errorf("file %s of jot %s: %w", f.Path, name, err)
		}
	}
	return nil
}

// Jot is a live jot as the read model knows it.
type Jot struct {
	Name       string
	Creator    uuid.UUID
	Settings   jot.Settings
	Generation int64
	// Version is the stream version of the last event applied.
	Version    int64
	DeployedAt time.Time
	UpdatedAt  time.Time
}

// ErrNotFound is returned when no live jot has the name (or no file the path).
var ErrNotFound = errors.New("jots: not found")

// Reader answers jot questions from the read model.
type Reader struct{ DB *sql.DB }

// Jot returns the live jot called name.
func (r Reader) Jot(ctx context.Context, name string) (Jot, error) {
	var j Jot
	var creator, access, deployed, updated string
	var cors int
	err := r.DB.QueryRowContext(ctx, `SELECT name, creator, access, password_hash, cors, generation, version, deployed_at, updated_at
		FROM jots WHERE name = $1`, name).Scan(&j.Name, &creator, &access, &j.Settings.PasswordHash, &cors, &j.Generation, &j.Version, &deployed, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Jot{}, ErrNotFound
	}
	if err != nil {
		return Jot{}, fmt.Errorf("jots: read %s: %w", name, err)
	}
	j.Settings.Access, j.Settings.CORS = jot.Access(access), cors != 0
	if j.Creator, err = uuid.Parse(creator); err != nil {
		return Jot{}, err
	}
	if j.DeployedAt, err = dbtime.Parse(deployed); err != nil {
		return Jot{}, err
	}
	j.UpdatedAt, err = dbtime.Parse(updated)
	return j, err
}

// File returns one manifest entry of the live jot called name.
func (r Reader) File(ctx context.Context, name, path string) (jot.File, error) {
	f := jot.File{Path: path}
	err := r.DB.QueryRowContext(ctx, `SELECT size, sha256, content_type FROM jot_files WHERE name = $1 AND path = $2`, name, path).
		Scan(&f.Size, &f.SHA256, &f.ContentType)
	if errors.Is(err, sql.ErrNoRows) {
		return jot.File{}, ErrNotFound
	}
	if err != nil {
		return jot.File{}, fmt.Errorf("jots: read %s/%s: %w", name, path, err)
	}
	return f, nil
}

// Files returns the manifest of the jot called name, sorted by path (empty for an unknown jot).
func (r Reader) Files(ctx context.Context, name string) ([]jot.File, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT path, size, sha256, content_type FROM jot_files WHERE name = $1`, name)
	if err != nil {
		return nil, fmt.Errorf("jots: list %s: %w", name, err)
	}
	defer rows.Close()
	var out []jot.File
	for rows.Next() {
		var f jot.File
		if err := rows.Scan(&f.Path, &f.Size, &f.SHA256, &f.ContentType); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	// Sorted here, byte-wise, not by the database: PostgreSQL's collation may order paths differently.
	slices.SortFunc(out, func(a, b jot.File) int { return strings.Compare(a.Path, b.Path) })
	return out, rows.Err()
}

// ByCreator returns the names of the user's live jots, sorted.
func (r Reader) ByCreator(ctx context.Context, user uuid.UUID) ([]string, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT name FROM jots WHERE creator = $1 ORDER BY name`, user.String())
	if err != nil {
		return nil, fmt.Errorf("jots: list for %s: %w", user, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// Held counts the names user holds at time at: live jots, and names claimed but not deployed whose
// claim has not expired (the read model's view of jot.State.Holder).
func (r Reader) Held(ctx context.Context, user uuid.UUID, at time.Time) (int, error) {
	var n int
	err := r.DB.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM jots WHERE creator = $1) +
		(SELECT COUNT(*) FROM jot_claims c WHERE c.creator = $1 AND c.expires_at > $2
			AND NOT EXISTS (SELECT 1 FROM jots j WHERE j.name = c.name))`, user.String(), dbtime.Format(at)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("jots: count the names of %s: %w", user, err)
	}
	return n, nil
}

// Bytes is the total size of the files of user's live jots, leaving out the jot called except (the
// one about to be replaced; "" leaves out none).
func (r Reader) Bytes(ctx context.Context, user uuid.UUID, except string) (int64, error) {
	var n sql.NullInt64
	err := r.DB.QueryRowContext(ctx, `SELECT SUM(f.size) FROM jot_files f JOIN jots j ON j.name = f.name
		WHERE j.creator = $1 AND j.name <> $2`, user.String(), except).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("jots: bytes of %s: %w", user, err)
	}
	return n.Int64, nil
}

// LiveSums calls fn with the sha256 of every file of every live jot (a sum shared by several files
// may come more than once).
func (r Reader) LiveSums(ctx context.Context, fn func(sum string)) error {
	rows, err := r.DB.QueryContext(ctx, `SELECT DISTINCT sha256 FROM jot_files`)
	if err != nil {
		return fmt.Errorf("jots: live blobs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		fn(s)
	}
	return rows.Err()
}
