#!/bin/sh
# Denies shell commands that delete recursively from the root or a home directory.
. /opt/hookwarden/hooks/lib/common.sh
input=$(cat)
case "$input" in
  *'rm -rf /'*|*'rm -rf ~'*|*'rm -rf $HOME'*)
    deny "recursive delete of / or a home directory is blocked by company policy" ;;
esac
exit 0
