package hubspot_test

import (
	"testing"

	"github.com/workbench/workbench/plugins/hubspot"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the hubspot plugin, against HubSpot's CRM API reference
// (developers.hubspot.com/docs/api-reference: CRM objects v3 basic and search endpoints, owners v3,
// pipelines v3, associations v4).

const hubspotToken = "CKaY-contract-token"

var hubspotHeaders = map[string]string{"Authorization": "Bearer " + hubspotToken, "Accept": "application/json"}

var hubspotJSONHeaders = map[string]string{"Authorization": "Bearer " + hubspotToken, "Content-Type": "application/json"}

// hubspotRecord is a CRM object as the v3 endpoints return it.
func hubspotRecord(id string, props map[string]any) map[string]any {
	return map[string]any{"id": id, "properties": props, "createdAt": "2024-01-15T10:00:00.000Z", "updatedAt": "2024-03-01T09:30:00.000Z", "archived": false}
}

// creds are what the fake expects of the hubspot connection.
var creds = plugintest.Credentials{Token: hubspotToken}

// TestContracts calls every hubspot tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, hubspot.Plugin(), creds, contracts())
}

// contracts are the hubspot tools' contract cases.
func contracts() []plugintest.Case {
	contact := hubspotRecord("512", map[string]any{"email": "ada@example.com", "firstname": "Ada", "lastname": "Lovelace",
		"createdate": "2024-01-15T10:00:00.000Z", "hs_object_id": "512", "lastmodifieddate": "2024-03-01T09:30:00.000Z"})
	const contactShaped = `{"id":"512","properties":{"email":"ada@example.com","firstname":"Ada","lastname":"Lovelace",
	 "createdate":"2024-01-15T10:00:00.000Z","hs_object_id":"512","lastmodifieddate":"2024-03-01T09:30:00.000Z"},
	 "createdAt":"2024-01-15T10:00:00.000Z","updatedAt":"2024-03-01T09:30:00.000Z","archived":false}`
	company := hubspotRecord("9001", map[string]any{"name": "Acme", "domain": "acme.com", "hs_object_id": "9001"})
	const companyShaped = `{"id":"9001","properties":{"name":"Acme","domain":"acme.com","hs_object_id":"9001"},
	 "createdAt":"2024-01-15T10:00:00.000Z","updatedAt":"2024-03-01T09:30:00.000Z","archived":false}`
	deal := hubspotRecord("7007", map[string]any{"dealname": "Acme renewal", "amount": "12000", "dealstage": "appointmentscheduled", "pipeline": "default"})
	const dealShaped = `{"id":"7007","properties":{"dealname":"Acme renewal","amount":"12000","dealstage":"appointmentscheduled","pipeline":"default"},
	 "createdAt":"2024-01-15T10:00:00.000Z","updatedAt":"2024-03-01T09:30:00.000Z","archived":false}`
	page := func(rec map[string]any) map[string]any {
		return map[string]any{"results": []any{rec}, "paging": map[string]any{"next": map[string]any{"after": "NTI1Cg%3D%3D", "link": "?after=NTI1Cg%3D%3D"}}}
	}
	withAssoc := func(rec map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range rec {
			out[k] = v
		}
		out["associations"] = map[string]any{"companies": map[string]any{"results": []any{map[string]any{"id": "9001", "type": "contact_to_company"}}}}
		return out
	}
	return []plugintest.Case{
		{
			Tool: "hubspot_list_contacts", Args: `{"properties":["email","firstname","lastname"],"limit":2}`,
			Method: "GET", Path: "/crm/v3/objects/contacts", Query: "archived=false&limit=2&properties=email%2Cfirstname%2Clastname", Header: hubspotHeaders,
			Status: 200, Respond: page(contact),
			Want: `{"items":[` + contactShaped + `],"next_cursor":"NTI1Cg%3D%3D"}`,
		},
		{
			Tool: "hubspot_get_contact", Args: `{"contact_id":"ada@example.com","id_property":"email","associations":["companies"]}`,
			Method: "GET", Path: "/crm/v3/objects/contacts/ada@example.com", Query: "archived=false&associations=companies&idProperty=email", Header: hubspotHeaders,
			Status: 200, Respond: withAssoc(contact),
			Want: contactShaped[:len(contactShaped)-1] + `,"associations":{"companies":{"results":[{"id":"9001","type":"contact_to_company"}]}}}`,
		},
		{
			Tool: "hubspot_create_contact", Args: `{"properties":{"email":"ada@example.com","firstname":"Ada","lastname":"Lovelace"}}`,
			Method: "POST", Path: "/crm/v3/objects/contacts", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"email":"ada@example.com","firstname":"Ada","lastname":"Lovelace"}}`,
			Status: 201, Respond: contact, Want: contactShaped,
		},
		{
			Tool: "hubspot_update_contact", Args: `{"contact_id":"512","properties":{"lifecyclestage":"customer","phone":""}}`,
			Method: "PATCH", Path: "/crm/v3/objects/contacts/512", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"lifecyclestage":"customer","phone":""}}`,
			Status: 200, Respond: contact, Want: contactShaped,
		},
		{
			Tool: "hubspot_search_contacts",
			Args: `{"filter_groups":[{"filters":[{"propertyName":"email","operator":"CONTAINS_TOKEN","value":"*@example.com"}]}],
			 "sorts":[{"propertyName":"createdate","direction":"DESCENDING"}],"properties":["email","firstname"],"after":"10"}`,
			Method: "POST", Path: "/crm/v3/objects/contacts/search", Header: hubspotJSONHeaders,
			Body: `{"filterGroups":[{"filters":[{"propertyName":"email","operator":"CONTAINS_TOKEN","value":"*@example.com"}]}],
			 "sorts":[{"propertyName":"createdate","direction":"DESCENDING"}],"properties":["email","firstname"],"limit":10,"after":"10"}`,
			Status: 200, Respond: map[string]any{"total": 1, "results": []any{contact}},
			Want: `{"items":[` + contactShaped + `]}`,
		},
		{
			Tool: "hubspot_list_companies", Args: `{}`,
			Method: "GET", Path: "/crm/v3/objects/companies", Query: "archived=false&limit=10", Header: hubspotHeaders,
			Status: 200, Respond: page(company),
			Want: `{"items":[` + companyShaped + `],"next_cursor":"NTI1Cg%3D%3D"}`,
		},
		{
			Tool: "hubspot_get_company", Args: `{"company_id":"9001","properties":["name","domain"]}`,
			Method: "GET", Path: "/crm/v3/objects/companies/9001", Query: "archived=false&properties=name%2Cdomain", Header: hubspotHeaders,
			Status: 200, Respond: company, Want: companyShaped,
		},
		{
			Tool: "hubspot_create_company", Args: `{"properties":{"name":"Acme","domain":"acme.com"}}`,
			Method: "POST", Path: "/crm/v3/objects/companies", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"name":"Acme","domain":"acme.com"}}`,
			Status: 201, Respond: company, Want: companyShaped,
		},
		{
			Tool: "hubspot_update_company", Args: `{"company_id":"9001","properties":{"numberofemployees":250}}`,
			Method: "PATCH", Path: "/crm/v3/objects/companies/9001", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"numberofemployees":250}}`,
			Status: 200, Respond: company, Want: companyShaped,
		},
		{
			Tool: "hubspot_search_companies", Args: `{"query":"acme","limit":5}`,
			Method: "POST", Path: "/crm/v3/objects/companies/search", Header: hubspotJSONHeaders,
			Body:   `{"query":"acme","limit":5}`,
			Status: 200, Respond: map[string]any{"total": 12, "results": []any{company}, "paging": map[string]any{"next": map[string]any{"after": "5"}}},
			Want: `{"items":[` + companyShaped + `],"next_cursor":"5"}`,
		},
		{
			Tool: "hubspot_list_deals", Args: `{"associations":["contacts"],"after":"NTI1Cg%3D%3D"}`,
			Method: "GET", Path: "/crm/v3/objects/deals", Query: "after=NTI1Cg%253D%253D&archived=false&associations=contacts&limit=10", Header: hubspotHeaders,
			Status: 200, Respond: map[string]any{"results": []any{deal}},
			Want: `{"items":[` + dealShaped + `]}`,
		},
		{
			Tool: "hubspot_get_deal", Args: `{"deal_id":"7007"}`,
			Method: "GET", Path: "/crm/v3/objects/deals/7007", Query: "archived=false", Header: hubspotHeaders,
			Status: 200, Respond: deal, Want: dealShaped,
		},
		{
			Tool: "hubspot_create_deal", Args: `{"properties":{"dealname":"Acme renewal","amount":"12000","pipeline":"default","dealstage":"appointmentscheduled"}}`,
			Method: "POST", Path: "/crm/v3/objects/deals", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"dealname":"Acme renewal","amount":"12000","pipeline":"default","dealstage":"appointmentscheduled"}}`,
			Status: 201, Respond: deal, Want: dealShaped,
		},
		{
			Tool: "hubspot_update_deal", Args: `{"deal_id":"7007","properties":{"dealstage":"closedwon"}}`,
			Method: "PATCH", Path: "/crm/v3/objects/deals/7007", Header: hubspotJSONHeaders,
			Body:   `{"properties":{"dealstage":"closedwon"}}`,
			Status: 200, Respond: deal, Want: dealShaped,
		},
		{
			Tool: "hubspot_search_deals", Args: `{"filter_groups":[{"filters":[{"propertyName":"hubspot_owner_id","operator":"EQ","value":"910901"},
			 {"propertyName":"closedate","operator":"BETWEEN","value":"2024-10-01","highValue":"2024-12-31"}]}]}`,
			Method: "POST", Path: "/crm/v3/objects/deals/search", Header: hubspotJSONHeaders,
			Body: `{"filterGroups":[{"filters":[{"propertyName":"hubspot_owner_id","operator":"EQ","value":"910901"},
			 {"propertyName":"closedate","operator":"BETWEEN","value":"2024-10-01","highValue":"2024-12-31"}]}],"limit":10}`,
			Status: 200, Respond: map[string]any{"total": 1, "results": []any{deal}},
			Want: `{"items":[` + dealShaped + `]}`,
		},
		{
			Tool: "hubspot_list_owners", Args: `{"email":"ana@example.com"}`,
			Method: "GET", Path: "/crm/v3/owners", Query: "archived=false&email=ana%40example.com&limit=100", Header: hubspotHeaders,
			Status: 200, Respond: map[string]any{"results": []any{map[string]any{"id": "910901", "email": "ana@example.com", "type": "PERSON",
				"firstName": "Ana", "lastName": "Silva", "userId": 4242, "userIdIncludingInactive": 4242, "createdAt": "2023-01-01T00:00:00Z",
				"updatedAt": "2024-01-01T00:00:00Z", "archived": false, "teams": []any{map[string]any{"id": "12", "name": "Sales", "primary": true}}}}},
			Want: `{"items":[{"id":"910901","email":"ana@example.com","firstName":"Ana","lastName":"Silva","userId":4242,"archived":false,
			 "teams":[{"id":"12","name":"Sales","primary":true}]}]}`,
		},
		{
			Tool: "hubspot_list_pipelines", Args: `{}`,
			Method: "GET", Path: "/crm/v3/pipelines/deals", Header: hubspotHeaders,
			Status: 200, Respond: map[string]any{"results": []any{map[string]any{"id": "default", "label": "Sales Pipeline", "displayOrder": 0, "archived": false,
				"createdAt": "2023-01-01T00:00:00Z", "updatedAt": "2023-01-01T00:00:00Z",
				"stages": []any{map[string]any{"id": "appointmentscheduled", "label": "Appointment Scheduled", "displayOrder": 0, "archived": false,
					"metadata": map[string]any{"isClosed": "false", "probability": "0.2"}, "createdAt": "2023-01-01T00:00:00Z", "writePermissions": "CRM_PERMISSIONS_ENFORCEMENT"}}}}},
			Want: `[{"id":"default","label":"Sales Pipeline","displayOrder":0,"archived":false,
			 "stages":[{"id":"appointmentscheduled","label":"Appointment Scheduled","displayOrder":0,"metadata":{"isClosed":"false","probability":"0.2"}}]}]`,
		},
		{
			Tool: "hubspot_list_associations", Args: `{"from_object_type":"companies","object_id":"9001","to_object_type":"contacts"}`,
			Method: "GET", Path: "/crm/v4/objects/companies/9001/associations/contacts", Query: "limit=100", Header: hubspotHeaders,
			Status: 200, Respond: map[string]any{"results": []any{map[string]any{"toObjectId": 512, "associationTypes": []any{
				map[string]any{"category": "HUBSPOT_DEFINED", "typeId": 280, "label": nil},
				map[string]any{"category": "HUBSPOT_DEFINED", "typeId": 2, "label": "Primary"}}}},
				"paging": map[string]any{"next": map[string]any{"after": "MTAw", "link": "?after=MTAw"}}},
			Want: `{"items":[{"toObjectId":512,"associationTypes":[{"category":"HUBSPOT_DEFINED","typeId":280,"label":null},
			 {"category":"HUBSPOT_DEFINED","typeId":2,"label":"Primary"}]}],"next_cursor":"MTAw"}`,
		},
		{
			Tool: "hubspot_create_association", Args: `{"from_object_type":"contacts","from_object_id":"512","to_object_type":"companies","to_object_id":"9001"}`,
			Method: "PUT", Path: "/crm/v4/objects/contacts/512/associations/default/companies/9001", Header: hubspotHeaders,
			Status: 200, Respond: map[string]any{"status": "COMPLETE", "startedAt": "2024-03-01T09:30:00.000Z", "completedAt": "2024-03-01T09:30:00.100Z",
				"results": []any{map[string]any{"from": map[string]any{"id": "512"}, "to": map[string]any{"id": "9001"},
					"associationSpec": map[string]any{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 279}}}},
			Want: `{"status":"COMPLETE","results":[{"from":{"id":"512"},"to":{"id":"9001"},
			 "associationSpec":{"associationCategory":"HUBSPOT_DEFINED","associationTypeId":279}}]}`,
		},
	}
}
