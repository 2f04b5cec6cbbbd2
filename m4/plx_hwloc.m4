# m4/plx_hwloc.m4 -- hwloc for plexusrun's --bind-to core (optional).
#
# plexusrun asks hwloc for the cores it may use (and their hyperthreads);
# without hwloc it reads /sys/devices/system/cpu/*/topology itself, which is
# right on plain Linux machines but knows nothing of odd topologies.
#   (not given)   auto: pkg-config hwloc, skip quietly when absent
#   --with-hwloc  required    --without-hwloc  not used
# Sets HWLOC_CFLAGS/HWLOC_LIBS (plexusrun only, never libplexus),
# PLX_HAVE_HWLOC in plx_config.h, plx_hwloc/plx_hwloc_why for the summary.
AC_DEFUN([PLX_CHECK_HWLOC], [
  AC_ARG_WITH([hwloc], [AS_HELP_STRING([--with-hwloc], [plexusrun binds ranks to cores through hwloc (default: auto, pkg-config hwloc)])],
              [], [with_hwloc=auto])
  AS_CASE(["$with_hwloc"], [auto|yes|no], [],
          [AC_MSG_ERROR([--with-hwloc takes no directory; set PKG_CONFIG_PATH to the directory of hwloc.pc instead])])
  AS_IF([test "x$with_hwloc" = xno], [plx_hwloc=no plx_hwloc_why="--without-hwloc; plexusrun reads /sys topology"], [
    PKG_CHECK_MODULES([HWLOC], [hwloc >= 2.0],
      [plx_hwloc=yes plx_hwloc_why="pkg-config hwloc `$PKG_CONFIG --modversion hwloc`"],
      [plx_hwloc=no plx_hwloc_why="pkg-config hwloc >= 2.0 not found (Debian: apt-get install libhwloc-dev); plexusrun reads /sys topology"
       AS_IF([test "x$with_hwloc" = xyes], [AC_MSG_ERROR([--with-hwloc was given but $plx_hwloc_why])])])
  ])
  AS_IF([test "x$plx_hwloc" = xyes],
        [AC_DEFINE([PLX_HAVE_HWLOC], [1], [Define to 1 if plexusrun uses hwloc for --bind-to.])],
        [HWLOC_CFLAGS= HWLOC_LIBS=])
  AC_SUBST([HWLOC_CFLAGS])
  AC_SUBST([HWLOC_LIBS])
])
