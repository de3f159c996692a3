#!/usr/bin/env bash
# Build the soak registration servlet and the embedded Tomcat launcher.
#
#   targets/servlet/build.sh OUTDIR
#
# Writes (each part rebuilt only when one of its inputs is newer than its stamp):
#   OUTDIR/webapp-javax/       exploded webapp for Tomcat 9 and Jetty 9 (javax.servlet)
#   OUTDIR/webapp-jakarta/     the same source with imports rewritten to jakarta.servlet (Tomcat 10)
#   OUTDIR/launcher-tomcat9/   soak/SoakTomcat.class compiled against Tomcat 9.0 jars,
#                              plus "classpath": the jars to run it with (one line, ':'-separated)
#   OUTDIR/launcher-tomcat10/  the same against Tomcat 10.1 jars
# Needs: javac (openjdk-17-jdk-headless), /usr/share/java/{servlet-api,postgresql}.jar
# (libservlet-api-java, libpostgresql-jdbc-java), tomcat9-*.jar and tomcat10-*.jar
# (libtomcat9-java, libtomcat10-java).
set -euo pipefail

die() { printf 'build.sh: error: %s\n' "$*" >&2; exit 1; }

[ $# -eq 1 ] || { printf 'usage: %s OUTDIR\n' "$0" >&2; exit 2; }
case "$1" in -h|--help) sed -n '2,16p' "$0"; exit 0 ;; esac

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SERVLET_SRC=$HERE/src/soak/RegisterServlet.java
WEBXML=$HERE/webapp/WEB-INF/web.xml
LAUNCHER_SRC=$ROOT/targets/containers/SoakTomcat.java
JAVA_DIR=${SOAK_JAVA_DIR:-/usr/share/java}

JAVAC=${JAVAC:-javac}
command -v "$JAVAC" >/dev/null 2>&1 \
    || die "javac not found (install openjdk-17-jdk-headless, or set JAVAC=/path/to/javac)"

JAVAX_API=$JAVA_DIR/servlet-api.jar
JAKARTA_API=$JAVA_DIR/tomcat10-servlet-api.jar
PGJDBC=$JAVA_DIR/postgresql.jar
TOMCAT_PARTS="catalina coyote juli util util-scan api servlet-api jaspic-api annotations-api
              el-api jsp-api jasper jasper-el websocket-api"

need_file() { # FILE PACKAGE
    [ -r "$1" ] || die "missing $1 (install the Debian package $2)"
}
need_file "$JAVAX_API" libservlet-api-java
need_file "$JAKARTA_API" libtomcat10-java
need_file "$PGJDBC" libpostgresql-jdbc-java
for f in "$SERVLET_SRC" "$WEBXML" "$LAUNCHER_SRC"; do
    [ -r "$f" ] || die "missing source file $f"
done

tomcat_cp() { # VERSION -> classpath of the embedded Tomcat, checked
    local v=$1 p cp=""
    for p in $TOMCAT_PARTS; do
        need_file "$JAVA_DIR/tomcat$v-$p.jar" "libtomcat$v-java"
        cp="${cp:+$cp:}$JAVA_DIR/tomcat$v-$p.jar"
    done
    printf '%s' "$cp"
}
CP9=$(tomcat_cp 9)
CP10=$(tomcat_cp 10)

OUT=$1
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)

# One build at a time per OUTDIR (parallel test runs share build/java).
exec 9>"$OUT/.build.lock"
flock -w 120 9 || die "timed out waiting for another build in $OUT"

JAVAC_FLAGS=(--release 11 -encoding UTF-8 "-Xlint:all,-path,-options")

# stale OUTPUT STAMP INPUT... : true when OUTPUT is missing or an input is newer than STAMP.
stale() {
    local out=$1 stamp=$2 f
    shift 2
    [ -d "$out" ] && [ -f "$stamp" ] || return 0
    for f in "$@"; do
        [ "$f" -nt "$stamp" ] && return 0
    done
    return 1
}

# build_webapp NAME API_JAR SED_EXPR
build_webapp() {
    local name=$1 api=$2 sedexpr=$3
    local dest=$OUT/webapp-$name stamp=$OUT/.stamp-webapp-$name
    if ! stale "$dest" "$stamp" "$SERVLET_SRC" "$WEBXML" "$HERE/build.sh" "$api" "$PGJDBC"; then
        return 0
    fi
    local tmp=$OUT/.tmp-webapp-$name
    rm -rf "$tmp"
    mkdir -p "$tmp/src/soak" "$tmp/webapp/WEB-INF/classes" "$tmp/webapp/WEB-INF/lib"
    sed -e "$sedexpr" "$SERVLET_SRC" >"$tmp/src/soak/RegisterServlet.java"
    "$JAVAC" "${JAVAC_FLAGS[@]}" -cp "$api" -d "$tmp/webapp/WEB-INF/classes" \
        "$tmp/src/soak/RegisterServlet.java" \
        || die "javac failed for webapp-$name"
    cp "$WEBXML" "$tmp/webapp/WEB-INF/web.xml"
    cp -L "$PGJDBC" "$tmp/webapp/WEB-INF/lib/postgresql.jar"
    rm -rf "$dest"
    mv "$tmp/webapp" "$dest"
    rm -rf "$tmp"
    touch "$stamp"
    printf 'build.sh: built %s\n' "$dest" >&2
}

# build_launcher VERSION CLASSPATH
build_launcher() {
    local v=$1 cp=$2
    local dest=$OUT/launcher-tomcat$v stamp=$OUT/.stamp-launcher-tomcat$v
    local -a jars
    IFS=: read -r -a jars <<<"$cp"
    if ! stale "$dest" "$stamp" "$LAUNCHER_SRC" "$HERE/build.sh" "${jars[@]}"; then
        return 0
    fi
    local tmp=$OUT/.tmp-launcher-tomcat$v
    rm -rf "$tmp"
    mkdir -p "$tmp"
    "$JAVAC" "${JAVAC_FLAGS[@]}" -cp "$cp" -d "$tmp" "$LAUNCHER_SRC" \
        || die "javac failed for launcher-tomcat$v"
    printf '%s\n' "$cp" >"$tmp/classpath"
    rm -rf "$dest"
    mv "$tmp" "$dest"
    touch "$stamp"
    printf 'build.sh: built %s\n' "$dest" >&2
}

build_webapp javax "$JAVAX_API" 's/^x$/x/'
build_webapp jakarta "$JAKARTA_API" 's/javax\.servlet/jakarta.servlet/g'
build_launcher 9 "$CP9"
build_launcher 10 "$CP10"
