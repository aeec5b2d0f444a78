# shellcheck shell=bash
# Sourced by the test scripts: removal that cannot reach the host through a mount.

# safe_remove DIR: remove DIR unless something is mounted at or below it (then refuse, naming the mounts);
# never crosses into another file system.
safe_remove() {
  local dir="$1" mounted
  [ -e "$dir" ] || [ -L "$dir" ] || return 0
  dir="$(realpath -m "$dir")"
  mounted="$(findmnt -rn -o TARGET | awk -v d="$dir" '$0 == d || index($0, d "/") == 1')"
  if [ -n "$mounted" ]; then
    printf 'refusing to remove %s: mounted at or below it:\n%s\nunmount these first (umount -R)\n' \
      "$dir" "$mounted" >&2
    return 1
  fi
  rm -rf --one-file-system -- "$dir"
}
