/* cf_agent_search.h: how the `search` agent turns a request into a
 * search's limits and a search's result into its answer, for callers that
 * run the searches themselves (many at once: tools/analyse through
 * engine/search/cf_search_group.h) and answer as the agent would. */
#ifndef CF_AGENT_SEARCH_H
#define CF_AGENT_SEARCH_H

#include "engine/cf_agent.h"
#include "engine/search/cf_search.h"

/* The limits the agent searches req with (a request without any limit
 * gets CF_SEARCH_DEFAULT_VISITS). */
void cf_agent_search_limits(const cf_agent_request *req, cf_search_limits *lim);

/* The agent's answer from search s's result r (its PV read from s). */
void cf_agent_search_result(const cf_search *s, const cf_search_result *r, cf_agent_result *out);

#endif /* CF_AGENT_SEARCH_H */
