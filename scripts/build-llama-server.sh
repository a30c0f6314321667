#!/usr/bin/env bash
# Build llama.cpp's llama-server from the llama.cpp sources vendored in the pinned
# llama-cpp-python sdist, and install it (binary and shared libraries) into a virtualenv.
#
#   scripts/build-llama-server.sh VENV VERSION [CMAKE_ARG...]
#
# The compiled server is kept in a cache folder named by the version and the CMake arguments,
# so a new virtualenv (or a new clone on the same machine) installs it again without compiling.
set -euo pipefail

venv=$1
version=$2
shift 2
cmake_args=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=ON
  # the installed binary finds its libraries in ../lib, wherever the virtualenv is
  '-DCMAKE_INSTALL_RPATH=$ORIGIN/../lib'
  -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON
  "$@"
)
# JSON replies without layout: the grammar llama-server builds from a JSON schema lets the
# model put newlines and up to 20 spaces between tokens, and a small model indents every level
# (twice the tokens, and replies cut off at max_tokens); llama-cpp-python's allowed one space
grammar_space='s|^const std::string SPACE_RULE = .*$|const std::string SPACE_RULE = "\\" \\"?";|'
key=$(printf '%s\n' "$version" "${cmake_args[@]}" "$grammar_space" | sha256sum | cut -c1-12)
cache=${FRONTIER_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/frontier}/llama-server-$version-$key

if [ ! -x "$cache/bin/llama-server" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$venv/bin/python" -m pip download --quiet --no-deps --no-binary :all: \
    "llama-cpp-python==$version" -d "$work"
  tar -xzf "$work/llama_cpp_python-$version.tar.gz" -C "$work"
  grammar="$work/llama_cpp_python-$version/vendor/llama.cpp/common/json-schema-to-grammar.cpp"
  sed -i "$grammar_space" "$grammar"
  grep -q '^const std::string SPACE_RULE = "\\" \\"?";' "$grammar"
  cmake -S "$work/llama_cpp_python-$version/vendor/llama.cpp" -B "$work/build" \
    "${cmake_args[@]}" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
  cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" \
    || { tail -50 "$work/build.log"; exit 1; }
  mkdir -p "$cache.partial/bin" "$cache.partial/lib"
  cp "$work/build/bin/llama-server" "$cache.partial/bin/"
  cp -P "$work"/build/bin/*.so* "$cache.partial/lib/"
  rm -rf "$cache"
  mv "$cache.partial" "$cache"
fi

install -m 755 "$cache/bin/llama-server" "$venv/bin/llama-server"
cp -P "$cache"/lib/*.so* "$venv/lib/"
"$venv/bin/llama-server" --version
