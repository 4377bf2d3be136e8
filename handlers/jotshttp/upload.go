package jotshttp

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
)

// overflowReader reads at most limit bytes and records whether the body had more.
type overflowReader struct {
	r        io.Reader
	left     int64
	overflow bool
}

var errBodyTooLarge = errors.New("upload body too large")

func (o *overflowReader) Read(p []byte) (int, error) {
	if o.left <= 0 {
		var one [1]byte
		if n, _ := o.r.Read(one[:]); n > 0 {
			o.overflow = true
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > o.left {
		p = p[:o.left]
	}
	n, err := o.r.Read(p)
	o.left -= int64(n)
	return n, err
}

func (h *Handler) upload(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "multipart/") || strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		handlers.WriteError(w, r, h.log, domain.Errorf(domain.CodeInvalid,
			"send the archive as the raw request body, not as a form: curl -T site.tgz '<upload_url>' (or --data-binary @site.tgz)"))
		return
	}
	limit := h.svc.Limits().MaxStreamBytes()
	tooLarge := func() {
		handlers.WriteJSON(w, http.StatusRequestEntityTooLarge, handlers.ErrorBody{Error: string(domain.CodeInvalid),
			Message: "the upload is larger than " + strconv.FormatInt(limit, 10) + " bytes; a jot holds at most " + strconv.FormatInt(h.svc.Limits().MaxBytes, 10) + " bytes decompressed"})
	}
	// A declared length over the cap is refused before a byte is read; a chunked body is cut off at it.
	if r.ContentLength > limit {
		tooLarge()
		return
	}
	body := &overflowReader{r: r.Body, left: limit}
	d, err := h.svc.Upload(r.Context(), chi.URLParam(r, "name"), chi.URLParam(r, "token"), body, eventstore.Metadata{CorrelationID: r.Header.Get("X-Request-Id")})
	if body.overflow {
		tooLarge()
		return
	}
	if err != nil {
		handlers.WriteError(w, r, h.log, err)
		return
	}
	handlers.WriteJSON(w, http.StatusOK, d)
}
