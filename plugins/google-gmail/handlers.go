package gmail

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/mail"
	"net/url"
	"strings"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
)

// The Gmail API takes outgoing mail as one base64url-encoded RFC 2822 message in a "raw" field
// (users.messages.send, users.drafts.create), which a declarative template cannot build: these
// handlers compose the message from plain arguments and post it.

// handlers are the google-gmail plugin's Go handlers, by tool name.
func handlers() map[string]plugins.Handler {
	return map[string]plugins.Handler{
		"google_gmail_send_message": gmailSendMessage,
		"google_gmail_create_draft": gmailCreateDraft,
		"google_gmail_read_message": gmailReadMessage,
	}
}

// gmailMaxResponse caps what the Gmail handlers read back; send and draft answers are small.
const gmailMaxResponse = 1 << 20

// gmailCompose is the arguments of google_gmail_send_message and google_gmail_create_draft.
type gmailCompose struct {
	To        []string `json:"to"`
	Cc        []string `json:"cc"`
	Bcc       []string `json:"bcc"`
	Subject   string   `json:"subject"`
	Body      string   `json:"body"`
	HTML      bool     `json:"html"`
	ThreadID  string   `json:"thread_id"`
	InReplyTo string   `json:"in_reply_to"`
}

func gmailSendMessage(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
	const tool = "google_gmail_send_message"
	var in gmailCompose
	if err := plugins.DecodeArgs(tool, args, &in); err != nil {
		return nil, err
	}
	raw, err := gmailRawMessage(tool, in)
	if err != nil {
		return nil, err
	}
	req := map[string]any{"raw": raw}
	if in.ThreadID != "" {
		req["threadId"] = in.ThreadID
	}
	var out struct {
		ID       string   `json:"id"`
		ThreadID string   `json:"threadId"`
		LabelIDs []string `json:"labelIds"`
	}
	if err := gmailDo(ctx, rc, tool, http.MethodPost, "/users/me/messages/send", req, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func gmailCreateDraft(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
	const tool = "google_gmail_create_draft"
	var in gmailCompose
	if err := plugins.DecodeArgs(tool, args, &in); err != nil {
		return nil, err
	}
	raw, err := gmailRawMessage(tool, in)
	if err != nil {
		return nil, err
	}
	msg := map[string]any{"raw": raw}
	if in.ThreadID != "" {
		msg["threadId"] = in.ThreadID
	}
	var out struct {
		ID      string `json:"id"`
		Message struct {
			ID       string   `json:"id"`
			ThreadID string   `json:"threadId"`
			LabelIDs []string `json:"labelIds"`
		} `json:"message"`
	}
	if err := gmailDo(ctx, rc, tool, http.MethodPost, "/users/me/drafts", map[string]any{"message": msg}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// gmailRawMessage builds the RFC 5322 message (UTF-8 body, base64 transfer encoding, RFC 2047
// encoded subject) and returns it base64url-encoded, as the Gmail API's "raw" field wants it.
// It adds no Date or Message-ID: Gmail sets both when it accepts the message.
func gmailRawMessage(tool string, in gmailCompose) (string, error) {
	var b strings.Builder
	for _, h := range []struct {
		name  string
		addrs []string
	}{{"To", in.To}, {"Cc", in.Cc}, {"Bcc", in.Bcc}} {
		if len(h.addrs) == 0 {
			continue
		}
		list, err := gmailAddressList(h.addrs)
		if err != nil {
			return "", &domain.Error{Code: domain.CodeInvalid, Message: fmt.Sprintf("%s: %s: %v", tool, strings.ToLower(h.name), err)}
		}
		fmt.Fprintf(&b, "%s: %s\r\n", h.name, list)
	}
	if strings.ContainsAny(in.Subject, "\r\n") || strings.ContainsAny(in.InReplyTo, "\r\n") {
		return "", &domain.Error{Code: domain.CodeInvalid, Message: tool + ": subject and in_reply_to must be single lines"}
	}
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.BEncoding.Encode("UTF-8", in.Subject))
	if in.InReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: %s\r\nReferences: %s\r\n", in.InReplyTo, in.InReplyTo)
	}
	ctype := "text/plain"
	if in.HTML {
		ctype = "text/html"
	}
	fmt.Fprintf(&b, "MIME-Version: 1.0\r\nContent-Type: %s; charset=\"UTF-8\"\r\nContent-Transfer-Encoding: base64\r\n\r\n", ctype)
	// RFC 2045 section 6.8: base64 lines of at most 76 characters.
	body := base64.StdEncoding.EncodeToString([]byte(in.Body))
	for len(body) > 76 {
		b.WriteString(body[:76] + "\r\n")
		body = body[76:]
	}
	b.WriteString(body + "\r\n")
	return base64.URLEncoding.EncodeToString([]byte(b.String())), nil
}

// gmailAddressList parses each recipient (RFC 5322 address or "Name <address>") and formats the
// list, encoding non-ASCII display names, so no argument can inject a header.
func gmailAddressList(addrs []string) (string, error) {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		parsed, err := mail.ParseAddress(a)
		if err != nil {
			return "", fmt.Errorf("%q is not an email address: %w", a, err)
		}
		out = append(out, parsed.String())
	}
	return strings.Join(out, ", "), nil
}

// gmailDo sends one request to the Gmail API through the context's guarded client (which adds the
// user's token), with body as JSON when it is not nil, and decodes the answer into out.
func gmailDo(ctx context.Context, rc plugins.Context, tool, method, path string, body, out any) error {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		reader = bytes.NewReader(data)
	}
	endpoint := strings.TrimSuffix(rc.Integration().BaseURL, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, endpoint, reader)
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "workbench")
	resp, respBody, err := plugins.Send(rc, tool, "Gmail", req, gmailMaxResponse)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		return plugins.ProviderHTTPError(tool, "Gmail", resp, respBody)
	}
	if err := json.Unmarshal(respBody, out); err != nil {
		return &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s: Gmail's answer is not the expected JSON", tool), Err: err}
	}
	return nil
}

// gmailMaxText caps the decoded body text google_gmail_read_message returns.
const gmailMaxText = 64 << 10

// gmailPart is a MIME part of users.messages.get with format=full.
type gmailPart struct {
	MimeType string `json:"mimeType"`
	Filename string `json:"filename"`
	Headers  []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
	Body struct {
		Size         int    `json:"size"`
		Data         string `json:"data"`
		AttachmentID string `json:"attachmentId"`
	} `json:"body"`
	Parts []gmailPart `json:"parts"`
}

// gmailReadMessage fetches a message with format=full and returns what an agent reads: the main
// headers, the text body decoded from base64url (text/plain preferred, else text/html), and the
// attachments' names and sizes. The declarative google_gmail_get_message returns the raw parts.
func gmailReadMessage(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
	const tool = "google_gmail_read_message"
	var in struct {
		MessageID string `json:"message_id"`
	}
	if err := plugins.DecodeArgs(tool, args, &in); err != nil {
		return nil, err
	}
	if in.MessageID == "" || in.MessageID == "." || in.MessageID == ".." {
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: tool + ": message_id is not a message id"}
	}
	var msg struct {
		ID           string    `json:"id"`
		ThreadID     string    `json:"threadId"`
		LabelIDs     []string  `json:"labelIds"`
		Snippet      string    `json:"snippet"`
		InternalDate string    `json:"internalDate"`
		Payload      gmailPart `json:"payload"`
	}
	path := "/users/me/messages/" + url.PathEscape(in.MessageID) + "?format=full"
	if err := gmailDo(ctx, rc, tool, http.MethodGet, path, nil, &msg); err != nil {
		return nil, err
	}
	headers := map[string]string{}
	for _, h := range msg.Payload.Headers {
		switch k := strings.ToLower(h.Name); k {
		case "from", "to", "cc", "subject", "date", "message-id", "reply-to":
			if _, seen := headers[k]; !seen {
				headers[k] = h.Value
			}
		}
	}
	var plain, html string
	type attachment struct {
		Filename     string `json:"filename"`
		MimeType     string `json:"mimeType"`
		Size         int    `json:"size"`
		AttachmentID string `json:"attachmentId"`
	}
	attachments := []attachment{}
	var walk func(p gmailPart)
	walk = func(p gmailPart) {
		switch {
		case p.Filename != "":
			attachments = append(attachments, attachment{p.Filename, p.MimeType, p.Body.Size, p.Body.AttachmentID})
		case p.MimeType == "text/plain" && plain == "":
			plain = gmailDecodeBody(p.Body.Data)
		case p.MimeType == "text/html" && html == "":
			html = gmailDecodeBody(p.Body.Data)
		}
		for _, c := range p.Parts {
			walk(c)
		}
	}
	walk(msg.Payload)
	text, format := plain, "text/plain"
	if text == "" && html != "" {
		text, format = html, "text/html"
	}
	truncated := len(text) > gmailMaxText
	if truncated {
		text = plugins.Truncate(text, gmailMaxText)
	}
	return map[string]any{
		"id": msg.ID, "threadId": msg.ThreadID, "labelIds": msg.LabelIDs, "snippet": msg.Snippet, "internalDate": msg.InternalDate,
		"from": headers["from"], "to": headers["to"], "cc": headers["cc"], "reply_to": headers["reply-to"], "subject": headers["subject"],
		"date": headers["date"], "message_id": headers["message-id"],
		"body_format": format, "body": text, "body_truncated": truncated, "attachments": attachments,
	}, nil
}

// gmailDecodeBody decodes a part's body.data (base64url, padded or not); undecodable data is
// returned as it came so nothing is silently lost.
func gmailDecodeBody(data string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(data, "="))
	if err != nil {
		return data
	}
	return string(b)
}
