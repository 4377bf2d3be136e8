package newrelic_test

import (
	"encoding/json"
	"testing"

	"github.com/workbench/workbench/plugins/newrelic"
	"github.com/workbench/workbench/plugins/plugintest"
)

// Contract cases for the newrelic plugin's NerdGraph operations: the current user, NRQL, accounts, entity search and lookup, APM applications, dashboards, alert issues
// and policies, and change-tracking deployments, as documented at docs.newrelic.com (NerdGraph
// entities, issues and change-tracking tutorials).

var nrHeaders = map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"}

// nrBody is the GraphQL request body: the tool's fixed document and its variables.
func nrBody(query string, variables map[string]any) string {
	body := map[string]any{"query": query}
	if variables != nil {
		body["variables"] = variables
	}
	b, _ := json.Marshal(body)
	return string(b)
}

func nrData(v map[string]any) map[string]any { return map[string]any{"data": v} }

var nrEntity = map[string]any{
	"guid": "MXxBUE18QVBQTElDQVRJT058MTIz", "name": "checkout-service", "entityType": "APM_APPLICATION_ENTITY", "domain": "APM",
	"type": "APPLICATION", "accountId": 1234567, "reporting": true, "alertSeverity": "NOT_ALERTING",
	"permalink": "https://one.newrelic.com/redirect/entity/MXxBUE18QVBQTElDQVRJT058MTIz",
	"tags":      []any{map[string]any{"key": "environment", "values": []any{"production"}}},
}

const nrEntityJSON = `{"guid":"MXxBUE18QVBQTElDQVRJT058MTIz","name":"checkout-service","entityType":"APM_APPLICATION_ENTITY","domain":"APM",
 "type":"APPLICATION","accountId":1234567,"reporting":true,"alertSeverity":"NOT_ALERTING",
 "permalink":"https://one.newrelic.com/redirect/entity/MXxBUE18QVBQTElDQVRJT058MTIz",
 "tags":[{"key":"environment","values":["production"]}]}`

// creds are what the fake expects of the newrelic connection.
var creds = plugintest.Credentials{APIKeys: map[string]string{"api_key": "NRAK-contract"}}

// TestContracts calls every newrelic tool against a fake that checks the request as the provider documents it.
func TestContracts(t *testing.T) {
	plugintest.Contracts(t, newrelic.Plugin(), creds, contracts())
}

// contracts are the newrelic tools' contract cases.
func contracts() []plugintest.Case {
	const (
		qAccounts      = "{ actor { organization { id name } accounts { id name } } }"
		qSearch        = "query($query: String!, $cursor: String) { actor { entitySearch(query: $query) { count results(cursor: $cursor) { nextCursor entities { guid name entityType domain type accountId reporting alertSeverity permalink tags { key values } } } } } }"
		qEntity        = "query($guid: EntityGuid!) { actor { entity(guid: $guid) { guid name entityType domain type accountId reporting alertSeverity permalink tags { key values } ... on ApmApplicationEntity { language apmSummary { apdexScore errorRate responseTimeAverage throughput hostCount instanceCount } } } } }"
		qApplications  = "query($name: String, $cursor: String) { actor { entitySearch(queryBuilder: {domain: APM, type: APPLICATION, name: $name}) { count results(cursor: $cursor) { nextCursor entities { guid name accountId reporting alertSeverity permalink ... on ApmApplicationEntityOutline { language apmSummary { apdexScore errorRate responseTimeAverage throughput instanceCount } } } } } } }"
		qDashboards    = "query($name: String, $cursor: String) { actor { entitySearch(queryBuilder: {type: DASHBOARD, name: $name}) { count results(cursor: $cursor) { nextCursor entities { guid name accountId permalink tags { key values } } } } } }"
		qIssues        = "query($accountId: Int!, $cursor: String, $filter: AiIssuesFilterIssues, $timeWindow: TimeWindowInput) { actor { account(id: $accountId) { aiIssues { issues(cursor: $cursor, filter: $filter, timeWindow: $timeWindow) { nextCursor issues { issueId title priority state entityNames entityGuids conditionName policyName totalIncidents createdAt activatedAt closedAt acknowledgedAt acknowledgedBy } } } } } }"
		qPolicies      = "query($accountId: Int!, $cursor: String) { actor { account(id: $accountId) { alerts { policiesSearch(cursor: $cursor) { nextCursor totalCount policies { id name incidentPreference } } } } } }"
		qCreateDeploy  = "mutation($deployment: ChangeTrackingDeploymentInput!) { changeTrackingCreateDeployment(deployment: $deployment) { deploymentId entityGuid version commit changelog description user deploymentType deepLink groupId timestamp } }"
		qDeployments   = "query($guid: EntityGuid!, $filter: ChangeTrackingSearchFilter) { actor { entity(guid: $guid) { deploymentSearch(filter: $filter) { results { deploymentId entityGuid version commit changelog description user deploymentType deepLink groupId timestamp } } } } }"
		nrGUID         = "MXxBUE18QVBQTElDQVRJT058MTIz"
		nrDeploymentID = "8a3a594c-e726-4bc2-8078-26dffec9a3d8"
	)
	deployment := map[string]any{"deploymentId": nrDeploymentID, "entityGuid": nrGUID, "version": "1.4.2", "commit": "3f2a9c1",
		"changelog": "https://github.com/acme/checkout/releases/tag/v1.4.2", "description": "Retry payments", "user": "ci-bot",
		"deploymentType": "ROLLING", "deepLink": nil, "groupId": nil, "timestamp": 1714665600000}
	const deploymentJSON = `{"deploymentId":"8a3a594c-e726-4bc2-8078-26dffec9a3d8","entityGuid":"MXxBUE18QVBQTElDQVRJT058MTIz","version":"1.4.2",
	 "commit":"3f2a9c1","changelog":"https://github.com/acme/checkout/releases/tag/v1.4.2","description":"Retry payments","user":"ci-bot",
	 "deploymentType":"ROLLING","deepLink":null,"groupId":null,"timestamp":1714665600000}`
	searchResult := func(entity map[string]any, next any) map[string]any {
		return nrData(map[string]any{"actor": map[string]any{"entitySearch": map[string]any{"count": 1,
			"results": map[string]any{"nextCursor": next, "entities": []any{entity}}}}})
	}
	app := map[string]any{"guid": nrGUID, "name": "checkout-service", "accountId": 1234567, "reporting": true, "alertSeverity": "WARNING",
		"permalink": "https://one.newrelic.com/redirect/entity/" + nrGUID, "language": "java",
		"apmSummary": map[string]any{"apdexScore": 0.93, "errorRate": 0.012, "responseTimeAverage": 0.21, "throughput": 1520.5, "instanceCount": 4}}
	return []plugintest.Case{
		{
			Tool: "newrelic_get_current_user", Args: `{}`,
			Method: "POST", Path: "/graphql", Header: map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"},
			Body:   `{"query":"{ actor { user { id name email } accounts { id name } } }"}`,
			Status: 200, Respond: map[string]any{"data": map[string]any{"actor": map[string]any{
				"user":     map[string]any{"id": 1000, "name": "Ada", "email": "ada@example.com"},
				"accounts": []any{map[string]any{"id": 1234567, "name": "Production"}}}}},
			Want: `{"user":{"id":1000,"name":"Ada","email":"ada@example.com"},"accounts":[{"id":1234567,"name":"Production"}]}`,
		},
		{
			Tool: "newrelic_run_nrql", Args: `{"account_id":1234567,"nrql":"SELECT count(*) FROM Transaction SINCE 1 hour ago"}`,
			Method: "POST", Path: "/graphql", Header: map[string]string{"Api-Key": "NRAK-contract", "Content-Type": "application/json"},
			Body: `{"query":"query($accountId: Int!, $nrql: Nrql!, $timeout: Seconds) { actor { account(id: $accountId) { nrql(query: $nrql, timeout: $timeout) { results } } } }",
		 "variables":{"accountId":1234567,"nrql":"SELECT count(*) FROM Transaction SINCE 1 hour ago","timeout":30}}`,
			Status: 200, Respond: map[string]any{"data": map[string]any{"actor": map[string]any{"account": map[string]any{"nrql": map[string]any{
				"results": []any{map[string]any{"count": 4242}}}}}}},
			Want: `[{"count":4242}]`,
		},
		{
			Tool: "newrelic_list_accounts", Args: `{}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders, Body: nrBody(qAccounts, nil),
			Status: 200, Respond: nrData(map[string]any{"actor": map[string]any{
				"organization": map[string]any{"id": "fc5b2cde-1234-4a4b-9c1d-0123456789ab", "name": "Acme"},
				"accounts":     []any{map[string]any{"id": 1234567, "name": "Production"}, map[string]any{"id": 7654321, "name": "Staging"}}}}),
			Want: `{"organization":{"id":"fc5b2cde-1234-4a4b-9c1d-0123456789ab","name":"Acme"},
			 "accounts":[{"id":1234567,"name":"Production"},{"id":7654321,"name":"Staging"}]}`,
		},
		{
			Tool: "newrelic_search_entities", Args: `{"query":"name LIKE 'checkout%' AND domain = 'APM'"}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders,
			Body:   nrBody(qSearch, map[string]any{"query": "name LIKE 'checkout%' AND domain = 'APM'"}),
			Status: 200, Respond: searchResult(nrEntity, "MjAyMy0wNi0wMVQwMDowMDowMFo="),
			Want: `{"items":{"count":1,"results":{"entities":[` + nrEntityJSON + `]}},"next_cursor":"MjAyMy0wNi0wMVQwMDowMDowMFo="}`,
		},
		{
			Tool: "newrelic_get_entity", Args: `{"guid":"` + nrGUID + `"}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders, Body: nrBody(qEntity, map[string]any{"guid": nrGUID}),
			Status: 200, Respond: nrData(map[string]any{"actor": map[string]any{"entity": nrEntity}}),
			Want: nrEntityJSON,
		},
		{
			Tool: "newrelic_list_applications", Args: `{"name":"checkout","cursor":"abc"}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders, Body: nrBody(qApplications, map[string]any{"name": "checkout", "cursor": "abc"}),
			Status: 200, Respond: searchResult(app, nil),
			Want: `{"items":{"count":1,"results":{"entities":[{"guid":"MXxBUE18QVBQTElDQVRJT058MTIz","name":"checkout-service","accountId":1234567,
			 "reporting":true,"alertSeverity":"WARNING","permalink":"https://one.newrelic.com/redirect/entity/MXxBUE18QVBQTElDQVRJT058MTIz","language":"java",
			 "apmSummary":{"apdexScore":0.93,"errorRate":0.012,"responseTimeAverage":0.21,"throughput":1520.5,"instanceCount":4}}]}}}`,
		},
		{
			Tool: "newrelic_list_dashboards", Args: `{}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders, Body: nrBody(qDashboards, nil), // no arguments: the all-absent variables object is dropped
			Status: 200, Respond: searchResult(map[string]any{"guid": "MXxWSVp8REFTSEJPQVJEfDQ1Ng", "name": "Checkout SLOs", "accountId": 1234567,
				"permalink": "https://one.newrelic.com/redirect/entity/MXxWSVp8REFTSEJPQVJEfDQ1Ng", "tags": []any{}}, nil),
			Want: `{"items":{"count":1,"results":{"entities":[{"guid":"MXxWSVp8REFTSEJPQVJEfDQ1Ng","name":"Checkout SLOs","accountId":1234567,
			 "permalink":"https://one.newrelic.com/redirect/entity/MXxWSVp8REFTSEJPQVJEfDQ1Ng","tags":[]}]}}}`,
		},
		{
			Tool: "newrelic_list_alert_issues", Args: `{"account_id":1234567,"states":["ACTIVATED"],"priorities":["CRITICAL"],"time_window":{"startTime":1714600000000,"endTime":1714686400000}}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders,
			Body: nrBody(qIssues, map[string]any{"accountId": 1234567, "filter": map[string]any{"states": []any{"ACTIVATED"}, "priority": []any{"CRITICAL"}},
				"timeWindow": map[string]any{"startTime": 1714600000000, "endTime": 1714686400000}}),
			Status: 200, Respond: nrData(map[string]any{"actor": map[string]any{"account": map[string]any{"aiIssues": map[string]any{"issues": map[string]any{
				"nextCursor": "=ATN",
				"issues": []any{map[string]any{"issueId": "bda33b52-c70b-47b9-abe3-9e859a394037", "title": []any{"Signal lost for 5 minutes on 'Percent All Facet'"},
					"priority": "CRITICAL", "state": "ACTIVATED", "entityNames": []any{"checkout-service"}, "entityGuids": []any{nrGUID},
					"conditionName": []any{"Signal lost"}, "policyName": []any{"Checkout"}, "totalIncidents": 1,
					"createdAt": 1714650000000, "activatedAt": 1714650060000, "closedAt": nil, "acknowledgedAt": nil, "acknowledgedBy": nil}}}}}}}),
			Want: `{"items":[{"issueId":"bda33b52-c70b-47b9-abe3-9e859a394037","title":["Signal lost for 5 minutes on 'Percent All Facet'"],
			 "priority":"CRITICAL","state":"ACTIVATED","entityNames":["checkout-service"],"entityGuids":["MXxBUE18QVBQTElDQVRJT058MTIz"],
			 "conditionName":["Signal lost"],"policyName":["Checkout"],"totalIncidents":1,"createdAt":1714650000000,"activatedAt":1714650060000,
			 "closedAt":null,"acknowledgedAt":null,"acknowledgedBy":null}],"next_cursor":"=ATN"}`,
		},
		{
			Tool: "newrelic_list_alert_policies", Args: `{"account_id":1234567}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders, Body: nrBody(qPolicies, map[string]any{"accountId": 1234567}),
			Status: 200, Respond: nrData(map[string]any{"actor": map[string]any{"account": map[string]any{"alerts": map[string]any{"policiesSearch": map[string]any{
				"nextCursor": nil, "totalCount": 1, "policies": []any{map[string]any{"id": "123456", "name": "Checkout", "incidentPreference": "PER_CONDITION"}}}}}}}),
			Want: `{"items":[{"id":"123456","name":"Checkout","incidentPreference":"PER_CONDITION"}]}`,
		},
		{
			Tool: "newrelic_create_deployment", Args: `{"entity_guid":"` + nrGUID + `","version":"1.4.2","commit":"3f2a9c1",
			 "changelog":"https://github.com/acme/checkout/releases/tag/v1.4.2","description":"Retry payments","user":"ci-bot","deployment_type":"ROLLING"}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders,
			Body: nrBody(qCreateDeploy, map[string]any{"deployment": map[string]any{"entityGuid": nrGUID, "version": "1.4.2", "commit": "3f2a9c1",
				"changelog": "https://github.com/acme/checkout/releases/tag/v1.4.2", "description": "Retry payments", "user": "ci-bot", "deploymentType": "ROLLING"}}),
			Status: 200, Respond: nrData(map[string]any{"changeTrackingCreateDeployment": deployment}),
			Want: deploymentJSON,
		},
		{
			Tool: "newrelic_list_deployments", Args: `{"entity_guid":"` + nrGUID + `","start_time":1714000000000,"end_time":1714700000000,"query":"user = 'ci-bot'"}`,
			Method: "POST", Path: "/graphql", Header: nrHeaders,
			Body: nrBody(qDeployments, map[string]any{"guid": nrGUID, "filter": map[string]any{
				"timeWindow": map[string]any{"startTime": 1714000000000, "endTime": 1714700000000}, "query": "user = 'ci-bot'", "limit": 100}}),
			Status: 200, Respond: nrData(map[string]any{"actor": map[string]any{"entity": map[string]any{"deploymentSearch": map[string]any{"results": []any{deployment}}}}}),
			Want: `[` + deploymentJSON + `]`,
		},
	}
}
