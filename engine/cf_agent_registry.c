/* cf_agent_registry.c: the one table of agents. */
#include <string.h>

#include "engine/cf_agent.h"

static const cf_agent_desc *const registry[] = {
    &cf_agent_policy_desc,
    &cf_agent_value_desc,
    &cf_agent_search_desc,
};

int cf_agent_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const cf_agent_desc *cf_agent_at(int i) {
  return i >= 0 && i < cf_agent_count() ? registry[i] : NULL;
}

const cf_agent_desc *cf_agent_find(const char *name) {
  for (int i = 0; name && i < cf_agent_count(); i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}
