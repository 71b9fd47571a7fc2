# shellcheck shell=bash
# Sourced by the scripts that install a pinned npm lockfile into the test
# cache; not run on its own.
#
# npm_cache_install NAME LOCK PREFIX PACKAGE...
#   NAME     what error messages start with (the calling script's name)
#   LOCK     directory holding package.json and package-lock.json
#   PREFIX   directory the packages are installed into
#   PACKAGE  name@version pins; each must be pinned in LOCK/package.json
#
# The caller defines three functions first:
#   npm_parts_present    succeeds when the files an install leaves are there
#   npm_parts_verify     after npm ran: prints what is wrong to stderr and
#                        fails when the install is not usable
#   npm_parts_report S   prints one line per part, S being cached or installed
#
# A stamp file records the pins and lockfile installed; when it matches and
# the parts are present, npm is not started at all, which keeps a warm run
# well under a second. Concurrent runs share one install through flock.
npm_cache_install() {
	local name=$1 lock=$2 prefix=$3
	shift 3
	local stamp=$prefix/.installed want p

	# The lockfile and the pins must name the same versions.
	for p; do
		if ! grep -q "\"${p%@*}\": \"${p##*@}\"" "$lock/package.json"; then
			echo "$name: $lock/package.json does not pin $p" >&2
			return 1
		fi
	done
	want=$(printf '%s\n' "$@"; cat "$lock/package.json" "$lock/package-lock.json" | sha256sum)

	if npm_cache_current "$stamp" "$want"; then
		npm_parts_report cached
		return 0
	fi

	mkdir -p "$prefix"
	exec 9>"$prefix/.install.lock"
	flock 9
	# A concurrent run may have finished the install while this one waited.
	if npm_cache_current "$stamp" "$want"; then
		npm_parts_report cached
		return 0
	fi

	# The stamp is removed before npm runs and written after it succeeds, so it
	# only ever names a complete install and a failed one is retried next time.
	rm -f "$stamp"
	cp "$lock/package.json" "$lock/package-lock.json" "$prefix/"
	npm ci --prefix "$prefix" --no-audit --no-fund --loglevel=error >&2
	npm_parts_verify || return 1
	printf '%s\n' "$want" >"$stamp"
	npm_parts_report installed
}

# npm_cache_current STAMP WANT succeeds when STAMP names WANT and the parts are there.
npm_cache_current() {
	[[ -f $1 && $(<"$1") == "$2" ]] && npm_parts_present
}
