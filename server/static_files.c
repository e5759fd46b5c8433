/* static_files.c: serving the dashboard from the static directory, with
 * MIME types, and never a file outside it (the path is checked by segment,
 * must be one of the dashboard's own folders, and the resolved path must
 * stay under the root). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "handlers.h"
#include "reply.h"

static const char *mime_type(const char *path)
{
    static const struct { const char *ext, *type; } types[] = {
        {".html", "text/html; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
        {".json", "application/json"}, {".map", "application/json"}, {".svg", "image/svg+xml"},
        {".png", "image/png"}, {".ico", "image/x-icon"}, {".woff2", "font/woff2"},
        {".txt", "text/plain; charset=utf-8"}, {".md", "text/plain; charset=utf-8"},
    };
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(dot, types[i].ext) == 0)
            return types[i].type;
    return "application/octet-stream";
}

/* Refuses "..", ".", empty segments and hidden files; the URL has been
 * percent-decoded by libmicrohttpd already. */
static int safe_url(const char *url)
{
    if (url[0] != '/' || strchr(url, '\\'))
        return 0;
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return 0;
    for (const char *seg = url + 1; *seg; ) {
        if (seg[0] == '.')
            return 0;
        const char *slash = strchr(seg, '/');
        if (!slash)
            break;
        if (slash == seg)
            return 0;
        seg = slash + 1;
    }
    return 1;
}

/* Only the dashboard itself is served, not what else lives in static/
 * (node_modules, package.json, scripts). */
static int published(const char *url)
{
    static const char *const prefixes[] = {"/css/", "/js/", "/vendor/", "/img/"};
    if (strcmp(url, "/index.html") == 0 || strncmp(url, "/favicon.", 9) == 0)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(url, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

static enum MHD_Result not_found(ari_request *r)
{
    return ari_reply_error(r, 404, "not_found", "no such file: %.200s", r->url);
}

enum MHD_Result ari_serve_static(ari_request *r)
{
    if (strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) {
        ari_reply_header(r, "Allow", "GET, HEAD");
        return ari_reply_error(r, 405, "method_not_allowed", "static files are read-only");
    }
    const char *url = strcmp(r->url, "/") == 0 ? "/index.html" : r->url;
    if (!safe_url(url) || !published(url) || !r->srv->static_root[0])
        return not_found(r);
    char path[PATH_MAX], real[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s", r->srv->static_root, url) >= (int)sizeof path ||
        !realpath(path, real))
        return not_found(r);
    size_t root_len = strlen(r->srv->static_root);
    if (strncmp(real, r->srv->static_root, root_len) != 0 || real[root_len] != '/')
        return not_found(r);
    int fd = open(real, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return not_found(r);
    }
    struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (!resp) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", mime_type(real));
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    return ari_queue(r, 200, resp);
}
