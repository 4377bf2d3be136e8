package plugins

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Contract cases for the google-drive plugin, against the Drive API v3 reference
// (developers.google.com/drive/api/reference/rest/v3: files, permissions, about, drives).

const driveToken = "ya29.drive-contract"

var driveHeaders = map[string]string{"Authorization": "Bearer " + driveToken, "Accept": "application/json"}

var driveJSONHeaders = map[string]string{"Authorization": "Bearer " + driveToken, "Content-Type": "application/json"}

const driveFileFields = "fields=id%2Cname%2CmimeType%2Cparents%2CwebViewLink&supportsAllDrives=true"

var driveFile = map[string]any{
	"kind": "drive#file", "id": "1AbCdEfGhIjK", "name": "Q3 budget", "mimeType": "application/vnd.google-apps.spreadsheet",
	"parents": []any{"0BfolderXYZ"}, "modifiedTime": "2024-09-30T12:00:00.000Z", "createdTime": "2024-07-01T08:00:00.000Z",
	"webViewLink": "https://docs.google.com/spreadsheets/d/1AbCdEfGhIjK/edit", "shared": true, "starred": false, "trashed": false,
	"owners": []any{map[string]any{"kind": "drive#user", "displayName": "Ada Lovelace", "emailAddress": "ada@example.com", "me": true}},
}

func init() {
	contractTokens["google-drive"] = driveToken
	contractCases = append(contractCases,
		contractCase{
			tool: "google_drive_list_files", args: `{"q":"name contains 'budget' and trashed = false","order_by":"modifiedTime desc","page_size":10}`,
			method: "GET", path: "/drive/v3/files",
			query: "fields=nextPageToken%2CincompleteSearch%2Cfiles%28id%2Cname%2CmimeType%2Cparents%2Csize%2CmodifiedTime%2CwebViewLink%2Cowners%28displayName%2CemailAddress%29%2Cshared%2Ctrashed%29" +
				"&includeItemsFromAllDrives=true&orderBy=modifiedTime+desc&pageSize=10&q=name+contains+%27budget%27+and+trashed+%3D+false&supportsAllDrives=true",
			header: driveHeaders,
			status: 200, respond: map[string]any{"nextPageToken": "~!!~AI9FV7T", "incompleteSearch": false, "files": []any{driveFile}},
			want: `{"items":[{"kind":"drive#file","id":"1AbCdEfGhIjK","name":"Q3 budget","mimeType":"application/vnd.google-apps.spreadsheet",
			 "parents":["0BfolderXYZ"],"modifiedTime":"2024-09-30T12:00:00.000Z","createdTime":"2024-07-01T08:00:00.000Z",
			 "webViewLink":"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjK/edit","shared":true,"starred":false,"trashed":false,
			 "owners":[{"kind":"drive#user","displayName":"Ada Lovelace","emailAddress":"ada@example.com","me":true}]}],"next_cursor":"~!!~AI9FV7T"}`,
		},
		contractCase{
			tool: "google_drive_get_file", args: `{"file_id":"1AbCdEfGhIjK"}`,
			method: "GET", path: "/drive/v3/files/1AbCdEfGhIjK",
			query:  "fields=id%2Cname%2CmimeType%2Cdescription%2Cparents%2Csize%2CcreatedTime%2CmodifiedTime%2CwebViewLink%2Cowners%28displayName%2CemailAddress%29%2Cshared%2Cstarred%2Ctrashed%2CdriveId&supportsAllDrives=true",
			header: driveHeaders,
			status: 200, respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget", "mimeType": "application/vnd.google-apps.spreadsheet", "trashed": false},
			want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget","mimeType":"application/vnd.google-apps.spreadsheet","trashed":false}`,
		},
		contractCase{
			tool: "google_drive_export_file", args: `{"file_id":"1DocId","mime_type":"text/markdown"}`,
			method: "GET", path: "/drive/v3/files/1DocId/export", query: "mimeType=text%2Fmarkdown", header: driveHeaders,
			status: 200, respond: "# Plan\n\nShip it.",
			want: `"# Plan\n\nShip it."`,
		},
		contractCase{
			tool: "google_drive_download_file", args: `{"file_id":"1JsonId"}`,
			method: "GET", path: "/drive/v3/files/1JsonId", query: "alt=media&supportsAllDrives=true", header: driveHeaders,
			status: 200, respond: map[string]any{"version": 2, "targets": []any{"prod"}},
			want: `{"version":2,"targets":["prod"]}`,
		},
		contractCase{
			tool: "google_drive_create_folder", args: `{"name":"Invoices 2024","parents":["0BfolderXYZ"]}`,
			method: "POST", path: "/drive/v3/files", query: driveFileFields, header: driveJSONHeaders,
			body:   `{"name":"Invoices 2024","mimeType":"application/vnd.google-apps.folder","parents":["0BfolderXYZ"]}`,
			status: 200, respond: map[string]any{"id": "1FolderNew", "name": "Invoices 2024", "mimeType": "application/vnd.google-apps.folder",
				"parents": []any{"0BfolderXYZ"}, "webViewLink": "https://drive.google.com/drive/folders/1FolderNew"},
			want: `{"id":"1FolderNew","name":"Invoices 2024","mimeType":"application/vnd.google-apps.folder","parents":["0BfolderXYZ"],
			 "webViewLink":"https://drive.google.com/drive/folders/1FolderNew"}`,
		},
		contractCase{
			tool: "google_drive_copy_file", args: `{"file_id":"1AbCdEfGhIjK","name":"Q4 budget"}`,
			method: "POST", path: "/drive/v3/files/1AbCdEfGhIjK/copy", query: driveFileFields, header: driveJSONHeaders,
			body:   `{"name":"Q4 budget"}`,
			status: 200, respond: map[string]any{"id": "1CopyId", "name": "Q4 budget", "mimeType": "application/vnd.google-apps.spreadsheet", "parents": []any{"0BfolderXYZ"}},
			want: `{"id":"1CopyId","name":"Q4 budget","mimeType":"application/vnd.google-apps.spreadsheet","parents":["0BfolderXYZ"]}`,
		},
		contractCase{
			tool: "google_drive_update_file", args: `{"file_id":"1AbCdEfGhIjK","name":"Q3 budget (final)","add_parents":"0BarchiveFolder","remove_parents":"0BfolderXYZ"}`,
			method: "PATCH", path: "/drive/v3/files/1AbCdEfGhIjK",
			query:  "addParents=0BarchiveFolder&fields=id%2Cname%2Cdescription%2Cparents%2Cstarred%2CwebViewLink&removeParents=0BfolderXYZ&supportsAllDrives=true",
			header: driveJSONHeaders,
			body:   `{"name":"Q3 budget (final)"}`,
			status: 200, respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget (final)", "parents": []any{"0BarchiveFolder"}, "starred": false},
			want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget (final)","parents":["0BarchiveFolder"],"starred":false}`,
		},
		contractCase{
			tool: "google_drive_trash_file", args: `{"file_id":"1AbCdEfGhIjK"}`,
			method: "PATCH", path: "/drive/v3/files/1AbCdEfGhIjK", query: "fields=id%2Cname%2Ctrashed&supportsAllDrives=true", header: driveJSONHeaders,
			body:   `{"trashed":true}`,
			status: 200, respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget", "trashed": true},
			want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget","trashed":true}`,
		},
		contractCase{
			tool: "google_drive_delete_file", args: `{"file_id":"1AbCdEfGhIjK"}`,
			method: "DELETE", path: "/drive/v3/files/1AbCdEfGhIjK", query: "supportsAllDrives=true", header: driveHeaders,
			status: 204, respond: nil,
			want: `{"ok":true,"status":204}`,
		},
		contractCase{
			tool: "google_drive_list_permissions", args: `{"file_id":"1AbCdEfGhIjK"}`,
			method: "GET", path: "/drive/v3/files/1AbCdEfGhIjK/permissions",
			query:  "fields=nextPageToken%2Cpermissions%28id%2Ctype%2Crole%2CemailAddress%2Cdomain%2CdisplayName%29&pageSize=100&supportsAllDrives=true",
			header: driveHeaders,
			status: 200, respond: map[string]any{"permissions": []any{
				map[string]any{"id": "01234567890", "type": "user", "role": "owner", "emailAddress": "ada@example.com", "displayName": "Ada Lovelace"},
				map[string]any{"id": "anyoneWithLink", "type": "anyone", "role": "reader"},
			}},
			want: `{"items":[{"id":"01234567890","type":"user","role":"owner","emailAddress":"ada@example.com","displayName":"Ada Lovelace"},
			 {"id":"anyoneWithLink","type":"anyone","role":"reader"}]}`,
		},
		contractCase{
			tool: "google_drive_share_file", args: `{"file_id":"1AbCdEfGhIjK","type":"user","role":"commenter","email_address":"bob@example.com","email_message":"Please review"}`,
			method: "POST", path: "/drive/v3/files/1AbCdEfGhIjK/permissions",
			query:  "emailMessage=Please+review&fields=id%2Ctype%2Crole%2CemailAddress%2Cdomain%2CdisplayName&sendNotificationEmail=true&supportsAllDrives=true",
			header: driveJSONHeaders,
			body:   `{"type":"user","role":"commenter","emailAddress":"bob@example.com"}`,
			status: 200, respond: map[string]any{"kind": "drive#permission", "id": "09876543210", "type": "user", "role": "commenter", "emailAddress": "bob@example.com", "displayName": "Bob"},
			want: `{"kind":"drive#permission","id":"09876543210","type":"user","role":"commenter","emailAddress":"bob@example.com","displayName":"Bob"}`,
		},
		contractCase{
			tool: "google_drive_delete_permission", args: `{"file_id":"1AbCdEfGhIjK","permission_id":"anyoneWithLink"}`,
			method: "DELETE", path: "/drive/v3/files/1AbCdEfGhIjK/permissions/anyoneWithLink", query: "supportsAllDrives=true", header: driveHeaders,
			status: 204, respond: nil,
			want: `{"ok":true,"status":204}`,
		},
		contractCase{
			tool: "google_drive_get_about", args: `{}`,
			method: "GET", path: "/drive/v3/about", query: "fields=user%28displayName%2CemailAddress%29%2CstorageQuota", header: driveHeaders,
			status: 200, respond: map[string]any{
				"user":         map[string]any{"displayName": "Ada Lovelace", "emailAddress": "ada@example.com"},
				"storageQuota": map[string]any{"limit": "16106127360", "usage": "5368709120", "usageInDrive": "4294967296", "usageInDriveTrash": "1048576"},
			},
			want: `{"user":{"displayName":"Ada Lovelace","emailAddress":"ada@example.com"},
			 "storageQuota":{"limit":"16106127360","usage":"5368709120","usageInDrive":"4294967296","usageInDriveTrash":"1048576"}}`,
		},
		contractCase{
			tool: "google_drive_list_shared_drives", args: `{"page_token":"tok1"}`,
			method: "GET", path: "/drive/v3/drives", query: "pageSize=50&pageToken=tok1", header: driveHeaders,
			status: 200, respond: map[string]any{"kind": "drive#driveList", "nextPageToken": "tok2", "drives": []any{
				map[string]any{"kind": "drive#drive", "id": "0AEngDrive", "name": "Engineering", "createdTime": "2023-02-01T10:00:00.000Z", "hidden": false,
					"capabilities": map[string]any{"canEdit": true}}}},
			want: `{"items":[{"id":"0AEngDrive","name":"Engineering","createdTime":"2023-02-01T10:00:00.000Z","hidden":false}],"next_cursor":"tok2"}`,
		},
	)
}

// TestGoogleDriveTextContent covers what the contract harness cannot: export and download answer
// with the file's own bytes (text/markdown, text/csv), not JSON, and the agent gets {status, text}.
func TestGoogleDriveTextContent(t *testing.T) {
	r := builtinRegistry(t)
	tests := []struct {
		name, tool, args, contentType, content, wantPath, wantQuery, want string
	}{
		{name: "export a doc as markdown", tool: "google_drive_export_file", args: `{"file_id":"1DocId","mime_type":"text/markdown"}`,
			contentType: "text/markdown", content: "# Plan\n\nShip it.\n", wantPath: "/drive/v3/files/1DocId/export", wantQuery: "mimeType=text%2Fmarkdown",
			want: `{"status":200,"text":"# Plan\n\nShip it.\n"}`},
		{name: "download a csv", tool: "google_drive_download_file", args: `{"file_id":"1CsvId"}`,
			contentType: "text/csv", content: "name,total\nacme,42\n", wantPath: "/drive/v3/files/1CsvId", wantQuery: "alt=media&supportsAllDrives=true",
			want: `{"status":200,"text":"name,total\nacme,42\n"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, seen := newFakeProvider(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = io.WriteString(w, tc.content)
			})
			out, err := call(t, r, tc.tool, tc.args, contextFor(t, r, tc.tool, fake))
			if err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 || (*seen)[0].Path != tc.wantPath || (*seen)[0].RawQuery != tc.wantQuery ||
				(*seen)[0].Header.Get("Authorization") != "Bearer "+driveToken {
				t.Errorf("requests %+v", *seen)
			}
			if diff := cmp.Diff(mustJSON(t, []byte(tc.want)), mustJSON(t, out)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}
