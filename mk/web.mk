# mk/web.mk - the web front end (web/, docs/frontend.md): `npm ci` from the
# committed lockfile, then Vite bundles it into build/www (content-hashed
# assets), which the gateway serves at / (gateway/static.c).  Node.js is
# needed to build only, never at run time.  Included by the top Makefile.

WEB_SRC := web/index.html web/vite.config.js $(shell find web/src -type f 2>/dev/null)
WEB_OUT := $(B)/www/index.html
NPM_FLAGS := --no-audit --no-fund --loglevel=error

.PHONY: web
web: $(WEB_OUT)
all: $(WEB_OUT)
TEST_EXTRA += $(WEB_OUT)

# npm ci writes node_modules/.package-lock.json; redone when the lockfile changes
web/node_modules/.package-lock.json: web/package-lock.json web/package.json
	cd web && npm ci $(NPM_FLAGS)
	@touch $@

$(WEB_OUT): $(WEB_SRC) web/node_modules/.package-lock.json
	cd web && node node_modules/vite/bin/vite.js build --logLevel warn --outDir $(abspath $(B))/www --emptyOutDir
	@# each text file above 1 KB also as NAME.gz (gzip -9, no name or time: the same bytes every build),
	@# which the gateway sends to a browser that accepts gzip (gateway/static.c)
	find $(B)/www -type f \( -name '*.js' -o -name '*.css' -o -name '*.html' -o -name '*.svg' -o -name '*.json' \) \
	  -size +1k -exec gzip -9 -n -k -f {} +

# `make test` also installs Debian's chromium for the browser tests
.PHONY: deps-browser
deps-browser:
	@bash scripts/deps.sh --browser
test: deps-browser
