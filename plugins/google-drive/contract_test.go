package googledrive_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/plugins/google-drive"
	"github.com/workbench/workbench/plugins/plugintest"
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

// creds are what the fake expects of the google-drive connection.
var creds = plugintest.Credentials{Token: driveToken}

// TestContracts calls every google-drive tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, googledrive.Plugin(), creds, contracts())
}

// contracts are the google-drive tools' contract cases.
func contracts() []plugintest.Case {
	return []plugintest.Case{
		{
			Tool: "google_drive_list_files", Args: `{"q":"name contains 'budget' and trashed = false","order_by":"modifiedTime desc","page_size":10}`,
			Method: "GET", Path: "/drive/v3/files",
			Query: "fields=nextPageToken%2CincompleteSearch%2Cfiles%28id%2Cname%2CmimeType%2Cparents%2Csize%2CmodifiedTime%2CwebViewLink%2Cowners%28displayName%2CemailAddress%29%2Cshared%2Ctrashed%29" +
				"&includeItemsFromAllDrives=true&orderBy=modifiedTime+desc&pageSize=10&q=name+contains+%27budget%27+and+trashed+%3D+false&supportsAllDrives=true",
			Header: driveHeaders,
			Status: 200, Respond: map[string]any{"nextPageToken": "~!!~AI9FV7T", "incompleteSearch": false, "files": []any{driveFile}},
			Want: `{"items":[{"kind":"drive#file","id":"1AbCdEfGhIjK","name":"Q3 budget","mimeType":"application/vnd.google-apps.spreadsheet",
			 "parents":["0BfolderXYZ"],"modifiedTime":"2024-09-30T12:00:00.000Z","createdTime":"2024-07-01T08:00:00.000Z",
			 "webViewLink":"https://docs.google.com/spreadsheets/d/1AbCdEfGhIjK/edit","shared":true,"starred":false,"trashed":false,
			 "owners":[{"kind":"drive#user","displayName":"Ada Lovelace","emailAddress":"ada@example.com","me":true}]}],"next_cursor":"~!!~AI9FV7T"}`,
		},
		{
			Tool: "google_drive_get_file", Args: `{"file_id":"1AbCdEfGhIjK"}`,
			Method: "GET", Path: "/drive/v3/files/1AbCdEfGhIjK",
			Query:  "fields=id%2Cname%2CmimeType%2Cdescription%2Cparents%2Csize%2CcreatedTime%2CmodifiedTime%2CwebViewLink%2Cowners%28displayName%2CemailAddress%29%2Cshared%2Cstarred%2Ctrashed%2CdriveId&supportsAllDrives=true",
			Header: driveHeaders,
			Status: 200, Respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget", "mimeType": "application/vnd.google-apps.spreadsheet", "trashed": false},
			Want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget","mimeType":"application/vnd.google-apps.spreadsheet","trashed":false}`,
		},
		{
			Tool: "google_drive_export_file", Args: `{"file_id":"1DocId","mime_type":"text/markdown"}`,
			Method: "GET", Path: "/drive/v3/files/1DocId/export", Query: "mimeType=text%2Fmarkdown", Header: driveHeaders,
			Status: 200, Respond: "# Plan\n\nShip it.",
			Want: `"# Plan\n\nShip it."`,
		},
		{
			Tool: "google_drive_download_file", Args: `{"file_id":"1JsonId"}`,
			Method: "GET", Path: "/drive/v3/files/1JsonId", Query: "alt=media&supportsAllDrives=true", Header: driveHeaders,
			Status: 200, Respond: map[string]any{"version": 2, "targets": []any{"prod"}},
			Want: `{"version":2,"targets":["prod"]}`,
		},
		{
			Tool: "google_drive_create_folder", Args: `{"name":"Invoices 2024","parents":["0BfolderXYZ"]}`,
			Method: "POST", Path: "/drive/v3/files", Query: driveFileFields, Header: driveJSONHeaders,
			Body:   `{"name":"Invoices 2024","mimeType":"application/vnd.google-apps.folder","parents":["0BfolderXYZ"]}`,
			Status: 200, Respond: map[string]any{"id": "1FolderNew", "name": "Invoices 2024", "mimeType": "application/vnd.google-apps.folder",
				"parents": []any{"0BfolderXYZ"}, "webViewLink": "https://drive.google.com/drive/folders/1FolderNew"},
			Want: `{"id":"1FolderNew","name":"Invoices 2024","mimeType":"application/vnd.google-apps.folder","parents":["0BfolderXYZ"],
			 "webViewLink":"https://drive.google.com/drive/folders/1FolderNew"}`,
		},
		{
			Tool: "google_drive_copy_file", Args: `{"file_id":"1AbCdEfGhIjK","name":"Q4 budget"}`,
			Method: "POST", Path: "/drive/v3/files/1AbCdEfGhIjK/copy", Query: driveFileFields, Header: driveJSONHeaders,
			Body:   `{"name":"Q4 budget"}`,
			Status: 200, Respond: map[string]any{"id": "1CopyId", "name": "Q4 budget", "mimeType": "application/vnd.google-apps.spreadsheet", "parents": []any{"0BfolderXYZ"}},
			Want: `{"id":"1CopyId","name":"Q4 budget","mimeType":"application/vnd.google-apps.spreadsheet","parents":["0BfolderXYZ"]}`,
		},
		{
			Tool: "google_drive_update_file", Args: `{"file_id":"1AbCdEfGhIjK","name":"Q3 budget (final)","add_parents":"0BarchiveFolder","remove_parents":"0BfolderXYZ"}`,
			Method: "PATCH", Path: "/drive/v3/files/1AbCdEfGhIjK",
			Query:  "addParents=0BarchiveFolder&fields=id%2Cname%2Cdescription%2Cparents%2Cstarred%2CwebViewLink&removeParents=0BfolderXYZ&supportsAllDrives=true",
			Header: driveJSONHeaders,
			Body:   `{"name":"Q3 budget (final)"}`,
			Status: 200, Respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget (final)", "parents": []any{"0BarchiveFolder"}, "starred": false},
			Want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget (final)","parents":["0BarchiveFolder"],"starred":false}`,
		},
		{
			Tool: "google_drive_trash_file", Args: `{"file_id":"1AbCdEfGhIjK"}`,
			Method: "PATCH", Path: "/drive/v3/files/1AbCdEfGhIjK", Query: "fields=id%2Cname%2Ctrashed&supportsAllDrives=true", Header: driveJSONHeaders,
			Body:   `{"trashed":true}`,
			Status: 200, Respond: map[string]any{"id": "1AbCdEfGhIjK", "name": "Q3 budget", "trashed": true},
			Want: `{"id":"1AbCdEfGhIjK","name":"Q3 budget","trashed":true}`,
		},
		{
			Tool: "google_drive_delete_file", Args: `{"file_id":"1AbCdEfGhIjK"}`,
			Method: "DELETE", Path: "/drive/v3/files/1AbCdEfGhIjK", Query: "supportsAllDrives=true", Header: driveHeaders,
			Status: 204, Respond: nil,
			Want: `{"ok":true,"status":204}`,
		},
		{
			Tool: "google_drive_list_permissions", Args: `{"file_id":"1AbCdEfGhIjK"}`,
			Method: "GET", Path: "/drive/v3/files/1AbCdEfGhIjK/permissions",
			Query:  "fields=nextPageToken%2Cpermissions%28id%2Ctype%2Crole%2CemailAddress%2Cdomain%2CdisplayName%29&pageSize=100&supportsAllDrives=true",
			Header: driveHeaders,
			Status: 200, Respond: map[string]any{"permissions": []any{
				map[string]any{"id": "01234567890", "type": "user", "role": "owner", "emailAddress": "ada@example.com", "displayName": "Ada Lovelace"},
				map[string]any{"id": "anyoneWithLink", "type": "anyone", "role": "reader"},
			}},
			Want: `{"items":[{"id":"01234567890","type":"user","role":"owner","emailAddress":"ada@example.com","displayName":"Ada Lovelace"},
			 {"id":"anyoneWithLink","type":"anyone","role":"reader"}]}`,
		},
		{
			Tool: "google_drive_share_file", Args: `{"file_id":"1AbCdEfGhIjK","type":"user","role":"commenter","email_address":"bob@example.com","email_message":"Please review"}`,
			Method: "POST", Path: "/drive/v3/files/1AbCdEfGhIjK/permissions",
			Query:  "emailMessage=Please+review&fields=id%2Ctype%2Crole%2CemailAddress%2Cdomain%2CdisplayName&sendNotificationEmail=true&supportsAllDrives=true",
			Header: driveJSONHeaders,
			Body:   `{"type":"user","role":"commenter","emailAddress":"bob@example.com"}`,
			Status: 200, Respond: map[string]any{"kind": "drive#permission", "id": "09876543210", "type": "user", "role": "commenter", "emailAddress": "bob@example.com", "displayName": "Bob"},
			Want: `{"kind":"drive#permission","id":"09876543210","type":"user","role":"commenter","emailAddress":"bob@example.com","displayName":"Bob"}`,
		},
		{
			Tool: "google_drive_delete_permission", Args: `{"file_id":"1AbCdEfGhIjK","permission_id":"anyoneWithLink"}`,
			Method: "DELETE", Path: "/drive/v3/files/1AbCdEfGhIjK/permissions/anyoneWithLink", Query: "supportsAllDrives=true", Header: driveHeaders,
			Status: 204, Respond: nil,
			Want: `{"ok":true,"status":204}`,
		},
		{
			Tool: "google_drive_get_about", Args: `{}`,
			Method: "GET", Path: "/drive/v3/about", Query: "fields=user%28displayName%2CemailAddress%29%2CstorageQuota", Header: driveHeaders,
			Status: 200, Respond: map[string]any{
				"user":         map[string]any{"displayName": "Ada Lovelace", "emailAddress": "ada@example.com"},
				"storageQuota": map[string]any{"limit": "16106127360", "usage": "5368709120", "usageInDrive": "4294967296", "usageInDriveTrash": "1048576"},
			},
			Want: `{"user":{"displayName":"Ada Lovelace","emailAddress":"ada@example.com"},
			 "storageQuota":{"limit":"16106127360","usage":"5368709120","usageInDrive":"4294967296","usageInDriveTrash":"1048576"}}`,
		},
		{
			Tool: "google_drive_list_shared_drives", Args: `{"page_token":"tok1"}`,
			Method: "GET", Path: "/drive/v3/drives", Query: "pageSize=50&pageToken=tok1", Header: driveHeaders,
			Status: 200, Respond: map[string]any{"kind": "drive#driveList", "nextPageToken": "tok2", "drives": []any{
				map[string]any{"kind": "drive#drive", "id": "0AEngDrive", "name": "Engineering", "createdTime": "2023-02-01T10:00:00.000Z", "hidden": false,
					"capabilities": map[string]any{"canEdit": true}}}},
			Want: `{"items":[{"id":"0AEngDrive","name":"Engineering","createdTime":"2023-02-01T10:00:00.000Z","hidden":false}],"next_cursor":"tok2"}`,
		},
	}
}

// TestGoogleDriveTextContent covers what the contract harness cannot: export and download answer
// with the file's own bytes (text/markdown, text/csv), not JSON, and the agent gets {status, text}.
func TestGoogleDriveTextContent(t *testing.T) {
	r := plugintest.Registry(t, googledrive.Plugin())
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
			fake, seen := plugintest.NewFake(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = io.WriteString(w, tc.content)
			})
			out, err := plugintest.Call(t, r, tc.tool, tc.args, plugintest.ContextFor(t, r, tc.tool, creds, fake))
			if err != nil {
				t.Fatal(err)
			}
			if len(*seen) != 1 || (*seen)[0].Path != tc.wantPath || (*seen)[0].RawQuery != tc.wantQuery ||
				(*seen)[0].Header.Get("Authorization") != "Bearer "+driveToken {
				t.Errorf("requests %+v", *seen)
			}
			if diff := cmp.Diff(plugintest.MustJSON(t, []byte(tc.want)), plugintest.MustJSON(t, out)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}
