/* module_map_json.c: the JSON forms of a module map (see
 * module_map_json.h); each rule goes to ari_module_map_add, which compiles
 * and checks its regular expression. */
#include "module_map_json.h"

#include <jansson.h>
#include <stddef.h>

static int map_add_json(ari_module_map *m, const char *module, json_t *pattern, ari_error *err)
{
    if (json_is_string(pattern))
        return ari_module_map_add(m, module, json_string_value(pattern), err);
    if (!json_is_array(pattern) || json_array_size(pattern) == 0)
        return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                             "module map: %.64s needs a pattern string or a non-empty array of them",
                             module);
    size_t i;
    json_t *p;
    json_array_foreach(pattern, i, p) {
        if (!json_is_string(p))
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "module map: the patterns of %.64s must be strings", module);
        if (ari_module_map_add(m, module, json_string_value(p), err) < 0)
            return -1;
    }
    return 0;
}

static int map_from_array(ari_module_map *m, json_t *rules, ari_error *err)
{
    size_t i;
    json_t *rule;
    json_array_foreach(rules, i, rule) {
        json_t *mod = json_object_get(rule, "module");
        json_t *pat = json_object_get(rule, "pattern");
        if (!json_is_object(rule) || !json_is_string(mod) || !pat)
            return ari_error_set(err, ARI_E_INVALID_PARAMETER,
                                 "module map: rule %zu must be {\"module\": ..., \"pattern\": ...}", i);
        if (map_add_json(m, json_string_value(mod), pat, err) < 0)
            return -1;
    }
    return 0;
}

static int map_from_object(ari_module_map *m, json_t *root, ari_error *err)
{
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        if (map_add_json(m, key, val, err) < 0)
            return -1;
    }
    return 0;
}

ari_module_map *ari_module_map_from_json(const char *text, ari_error *err)
{
    json_error_t jerr;
    json_t *root = json_loads(text ? text : "", 0, &jerr);
    if (!root) {
        ari_error_set(err, ARI_E_INVALID_PARAMETER, "module map: invalid JSON (%s)", jerr.text);
        return NULL;
    }
    ari_module_map *m = ari_module_map_new();
    int rc = -1;
    if (!m)
        ari_error_set(err, ARI_E_NOMEM, "out of memory");
    else if (json_is_array(root))
        rc = map_from_array(m, root, err);
    else if (json_is_object(root))
        rc = map_from_object(m, root, err);
    else
        ari_error_set(err, ARI_E_INVALID_PARAMETER,
                      "module map: expected an object {module: patterns} or an array of rules");
    if (rc == 0 && ari_module_map_count(m) == 0)
        rc = ari_error_set(err, ARI_E_INVALID_PARAMETER, "module map: no rules");
    json_decref(root);
    if (rc < 0) {
        ari_module_map_free(m);
        return NULL;
    }
    return m;
}
