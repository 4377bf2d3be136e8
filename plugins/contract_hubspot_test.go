package plugins

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

func init() {
	contractTokens["hubspot"] = hubspotToken
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
	contractCases = append(contractCases,
		contractCase{
			tool: "hubspot_list_contacts", args: `{"properties":["email","firstname","lastname"],"limit":2}`,
			method: "GET", path: "/crm/v3/objects/contacts", query: "archived=false&limit=2&properties=email%2Cfirstname%2Clastname", header: hubspotHeaders,
			status: 200, respond: page(contact),
			want: `{"items":[` + contactShaped + `],"next_cursor":"NTI1Cg%3D%3D"}`,
		},
		contractCase{
			tool: "hubspot_get_contact", args: `{"contact_id":"ada@example.com","id_property":"email","associations":["companies"]}`,
			method: "GET", path: "/crm/v3/objects/contacts/ada@example.com", query: "archived=false&associations=companies&idProperty=email", header: hubspotHeaders,
			status: 200, respond: withAssoc(contact),
			want: contactShaped[:len(contactShaped)-1] + `,"associations":{"companies":{"results":[{"id":"9001","type":"contact_to_company"}]}}}`,
		},
		contractCase{
			tool: "hubspot_create_contact", args: `{"properties":{"email":"ada@example.com","firstname":"Ada","lastname":"Lovelace"}}`,
			method: "POST", path: "/crm/v3/objects/contacts", header: hubspotJSONHeaders,
			body:   `{"properties":{"email":"ada@example.com","firstname":"Ada","lastname":"Lovelace"}}`,
			status: 201, respond: contact, want: contactShaped,
		},
		contractCase{
			tool: "hubspot_update_contact", args: `{"contact_id":"512","properties":{"lifecyclestage":"customer","phone":""}}`,
			method: "PATCH", path: "/crm/v3/objects/contacts/512", header: hubspotJSONHeaders,
			body:   `{"properties":{"lifecyclestage":"customer","phone":""}}`,
			status: 200, respond: contact, want: contactShaped,
		},
		contractCase{
			tool: "hubspot_search_contacts",
			args: `{"filter_groups":[{"filters":[{"propertyName":"email","operator":"CONTAINS_TOKEN","value":"*@example.com"}]}],
			 "sorts":[{"propertyName":"createdate","direction":"DESCENDING"}],"properties":["email","firstname"],"after":"10"}`,
			method: "POST", path: "/crm/v3/objects/contacts/search", header: hubspotJSONHeaders,
			body: `{"filterGroups":[{"filters":[{"propertyName":"email","operator":"CONTAINS_TOKEN","value":"*@example.com"}]}],
			 "sorts":[{"propertyName":"createdate","direction":"DESCENDING"}],"properties":["email","firstname"],"limit":10,"after":"10"}`,
			status: 200, respond: map[string]any{"total": 1, "results": []any{contact}},
			want: `{"items":[` + contactShaped + `]}`,
		},
		contractCase{
			tool: "hubspot_list_companies", args: `{}`,
			method: "GET", path: "/crm/v3/objects/companies", query: "archived=false&limit=10", header: hubspotHeaders,
			status: 200, respond: page(company),
			want: `{"items":[` + companyShaped + `],"next_cursor":"NTI1Cg%3D%3D"}`,
		},
		contractCase{
			tool: "hubspot_get_company", args: `{"company_id":"9001","properties":["name","domain"]}`,
			method: "GET", path: "/crm/v3/objects/companies/9001", query: "archived=false&properties=name%2Cdomain", header: hubspotHeaders,
			status: 200, respond: company, want: companyShaped,
		},
		contractCase{
			tool: "hubspot_create_company", args: `{"properties":{"name":"Acme","domain":"acme.com"}}`,
			method: "POST", path: "/crm/v3/objects/companies", header: hubspotJSONHeaders,
			body:   `{"properties":{"name":"Acme","domain":"acme.com"}}`,
			status: 201, respond: company, want: companyShaped,
		},
		contractCase{
			tool: "hubspot_update_company", args: `{"company_id":"9001","properties":{"numberofemployees":250}}`,
			method: "PATCH", path: "/crm/v3/objects/companies/9001", header: hubspotJSONHeaders,
			body:   `{"properties":{"numberofemployees":250}}`,
			status: 200, respond: company, want: companyShaped,
		},
		contractCase{
			tool: "hubspot_search_companies", args: `{"query":"acme","limit":5}`,
			method: "POST", path: "/crm/v3/objects/companies/search", header: hubspotJSONHeaders,
			body:   `{"query":"acme","limit":5}`,
			status: 200, respond: map[string]any{"total": 12, "results": []any{company}, "paging": map[string]any{"next": map[string]any{"after": "5"}}},
			want: `{"items":[` + companyShaped + `],"next_cursor":"5"}`,
		},
		contractCase{
			tool: "hubspot_list_deals", args: `{"associations":["contacts"],"after":"NTI1Cg%3D%3D"}`,
			method: "GET", path: "/crm/v3/objects/deals", query: "after=NTI1Cg%253D%253D&archived=false&associations=contacts&limit=10", header: hubspotHeaders,
			status: 200, respond: map[string]any{"results": []any{deal}},
			want: `{"items":[` + dealShaped + `]}`,
		},
		contractCase{
			tool: "hubspot_get_deal", args: `{"deal_id":"7007"}`,
			method: "GET", path: "/crm/v3/objects/deals/7007", query: "archived=false", header: hubspotHeaders,
			status: 200, respond: deal, want: dealShaped,
		},
		contractCase{
			tool: "hubspot_create_deal", args: `{"properties":{"dealname":"Acme renewal","amount":"12000","pipeline":"default","dealstage":"appointmentscheduled"}}`,
			method: "POST", path: "/crm/v3/objects/deals", header: hubspotJSONHeaders,
			body:   `{"properties":{"dealname":"Acme renewal","amount":"12000","pipeline":"default","dealstage":"appointmentscheduled"}}`,
			status: 201, respond: deal, want: dealShaped,
		},
		contractCase{
			tool: "hubspot_update_deal", args: `{"deal_id":"7007","properties":{"dealstage":"closedwon"}}`,
			method: "PATCH", path: "/crm/v3/objects/deals/7007", header: hubspotJSONHeaders,
			body:   `{"properties":{"dealstage":"closedwon"}}`,
			status: 200, respond: deal, want: dealShaped,
		},
		contractCase{
			tool: "hubspot_search_deals", args: `{"filter_groups":[{"filters":[{"propertyName":"hubspot_owner_id","operator":"EQ","value":"910901"},
			 {"propertyName":"closedate","operator":"BETWEEN","value":"2024-10-01","highValue":"2024-12-31"}]}]}`,
			method: "POST", path: "/crm/v3/objects/deals/search", header: hubspotJSONHeaders,
			body: `{"filterGroups":[{"filters":[{"propertyName":"hubspot_owner_id","operator":"EQ","value":"910901"},
			 {"propertyName":"closedate","operator":"BETWEEN","value":"2024-10-01","highValue":"2024-12-31"}]}],"limit":10}`,
			status: 200, respond: map[string]any{"total": 1, "results": []any{deal}},
			want: `{"items":[` + dealShaped + `]}`,
		},
		contractCase{
			tool: "hubspot_list_owners", args: `{"email":"ana@example.com"}`,
			method: "GET", path: "/crm/v3/owners", query: "archived=false&email=ana%40example.com&limit=100", header: hubspotHeaders,
			status: 200, respond: map[string]any{"results": []any{map[string]any{"id": "910901", "email": "ana@example.com", "type": "PERSON",
				"firstName": "Ana", "lastName": "Silva", "userId": 4242, "userIdIncludingInactive": 4242, "createdAt": "2023-01-01T00:00:00Z",
				"updatedAt": "2024-01-01T00:00:00Z", "archived": false, "teams": []any{map[string]any{"id": "12", "name": "Sales", "primary": true}}}}},
			want: `{"items":[{"id":"910901","email":"ana@example.com","firstName":"Ana","lastName":"Silva","userId":4242,"archived":false,
			 "teams":[{"id":"12","name":"Sales","primary":true}]}]}`,
		},
		contractCase{
			tool: "hubspot_list_pipelines", args: `{}`,
			method: "GET", path: "/crm/v3/pipelines/deals", header: hubspotHeaders,
			status: 200, respond: map[string]any{"results": []any{map[string]any{"id": "default", "label": "Sales Pipeline", "displayOrder": 0, "archived": false,
				"createdAt": "2023-01-01T00:00:00Z", "updatedAt": "2023-01-01T00:00:00Z",
				"stages": []any{map[string]any{"id": "appointmentscheduled", "label": "Appointment Scheduled", "displayOrder": 0, "archived": false,
					"metadata": map[string]any{"isClosed": "false", "probability": "0.2"}, "createdAt": "2023-01-01T00:00:00Z", "writePermissions": "CRM_PERMISSIONS_ENFORCEMENT"}}}}},
			want: `[{"id":"default","label":"Sales Pipeline","displayOrder":0,"archived":false,
			 "stages":[{"id":"appointmentscheduled","label":"Appointment Scheduled","displayOrder":0,"metadata":{"isClosed":"false","probability":"0.2"}}]}]`,
		},
		contractCase{
			tool: "hubspot_list_associations", args: `{"from_object_type":"companies","object_id":"9001","to_object_type":"contacts"}`,
			method: "GET", path: "/crm/v4/objects/companies/9001/associations/contacts", query: "limit=100", header: hubspotHeaders,
			status: 200, respond: map[string]any{"results": []any{map[string]any{"toObjectId": 512, "associationTypes": []any{
				map[string]any{"category": "HUBSPOT_DEFINED", "typeId": 280, "label": nil},
				map[string]any{"category": "HUBSPOT_DEFINED", "typeId": 2, "label": "Primary"}}}},
				"paging": map[string]any{"next": map[string]any{"after": "MTAw", "link": "?after=MTAw"}}},
			want: `{"items":[{"toObjectId":512,"associationTypes":[{"category":"HUBSPOT_DEFINED","typeId":280,"label":null},
			 {"category":"HUBSPOT_DEFINED","typeId":2,"label":"Primary"}]}],"next_cursor":"MTAw"}`,
		},
		contractCase{
			tool: "hubspot_create_association", args: `{"from_object_type":"contacts","from_object_id":"512","to_object_type":"companies","to_object_id":"9001"}`,
			method: "PUT", path: "/crm/v4/objects/contacts/512/associations/default/companies/9001", header: hubspotHeaders,
			status: 200, respond: map[string]any{"status": "COMPLETE", "startedAt": "2024-03-01T09:30:00.000Z", "completedAt": "2024-03-01T09:30:00.100Z",
				"results": []any{map[string]any{"from": map[string]any{"id": "512"}, "to": map[string]any{"id": "9001"},
					"associationSpec": map[string]any{"associationCategory": "HUBSPOT_DEFINED", "associationTypeId": 279}}}},
			want: `{"status":"COMPLETE","results":[{"from":{"id":"512"},"to":{"id":"9001"},
			 "associationSpec":{"associationCategory":"HUBSPOT_DEFINED","associationTypeId":279}}]}`,
		},
	)
}
