# Installation and Debian packages: `cmake --install BUILD --prefix P` and
# `cpack` (from the build directory) make one .deb per component:
#   roce-tester            (component tester)  /usr/bin/roce-tester, its man
#                          page, the conformance suite, the guides
#   roce-agent             (component agent)   /usr/sbin/roce-agent, its man
#                          page, the agent guides, an example systemd unit
#   roce-wireshark-plugin  (component plugin)  rocev2.so in Wireshark's
#                          global plugin folder (when the plugin is built)
# Dependencies on shared libraries come from dpkg-shlibdeps.

set(ROCE_PACKAGE_CONTACT "RoCEv2 Toolkit developers <roce-toolkit@example.org>" CACHE STRING
    "Maintainer field of the .deb packages (Name <address>)")

# The programs' install rules live with their targets; the agent's here.
if(TARGET roce-agent)
  install(TARGETS roce-agent RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT agent)
endif()

# The suite and the guides.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/conformance-cases/ DESTINATION ${CMAKE_INSTALL_DATADIR}/roce-tester/conformance-cases
        COMPONENT tester FILES_MATCHING PATTERN "*.case")
set(ROCE_TESTER_DOCS README.md docs/tester.md docs/reports.md docs/case-language.md docs/case-arguments.md docs/results-schema.md docs/results.schema.json docs/rules.md
    docs/real-hardware.md docs/libroce.md)
set(ROCE_AGENT_DOCS docs/agent.md docs/agent-protocol.md docs/real-hardware.md docs/rxe.md)
foreach(doc ${ROCE_TESTER_DOCS})
  if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
    install(FILES ${PROJECT_SOURCE_DIR}/${doc} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/roce-tester COMPONENT tester)
  endif()
endforeach()
foreach(doc ${ROCE_AGENT_DOCS})
  if(EXISTS ${PROJECT_SOURCE_DIR}/${doc})
    install(FILES ${PROJECT_SOURCE_DIR}/${doc} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/roce-agent COMPONENT agent)
  endif()
endforeach()
if(TARGET rocev2)
  install(FILES ${PROJECT_SOURCE_DIR}/docs/plugin.md DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/roce-wireshark-plugin
          COMPONENT plugin)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/packaging/roce-agent.service
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/roce-agent/examples COMPONENT agent)

# Every package carries the copyright (packaging/copyright, machine-readable)
# and the Debian changelog, gzipped without a timestamp so that two builds
# make the same package. The changelog's newest entry must be the version
# cpack stamps on the packages.
set(ROCE_DEB_RELEASE 1)
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/changelog ROCE_CHANGELOG_HEAD LIMIT_COUNT 1)
if(NOT ROCE_CHANGELOG_HEAD MATCHES "^roce-toolkit \\(${PROJECT_VERSION}-${ROCE_DEB_RELEASE}\\) ")
  message(FATAL_ERROR "packaging/changelog starts with '${ROCE_CHANGELOG_HEAD}', "
                      "not with version ${PROJECT_VERSION}-${ROCE_DEB_RELEASE}: add an entry for it")
endif()
find_program(ROCE_GZIP gzip REQUIRED)
set(ROCE_DEB_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog.Debian.gz)
add_custom_command(OUTPUT ${ROCE_DEB_CHANGELOG}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/packaging
  COMMAND ${ROCE_GZIP} -9nc ${PROJECT_SOURCE_DIR}/packaging/changelog > ${ROCE_DEB_CHANGELOG}
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog VERBATIM)
add_custom_target(deb-changelog ALL DEPENDS ${ROCE_DEB_CHANGELOG})
# A component installs the changelog also when only its program was built
# (cmake --build --target rocev2, then cmake --install --component plugin).
foreach(target roce-tester roce-agent rocev2)
  if(TARGET ${target})
    add_dependencies(${target} deb-changelog)
  endif()
endforeach()
set(ROCE_PACKAGE_NAMES tester roce-tester agent roce-agent plugin roce-wireshark-plugin)
foreach(component tester agent plugin)
  if(component STREQUAL "plugin" AND NOT TARGET rocev2)
    continue()
  endif()
  list(FIND ROCE_PACKAGE_NAMES ${component} i)
  math(EXPR i "${i} + 1")
  list(GET ROCE_PACKAGE_NAMES ${i} package)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${ROCE_DEB_CHANGELOG}
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${package} COMPONENT ${component})
endforeach()

# ---- CPack: Debian packages ----
set(ROCE_COMPONENTS tester agent)
if(TARGET rocev2)
  list(APPEND ROCE_COMPONENTS plugin)
endif()
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME roce-toolkit)
set(CPACK_PACKAGE_VENDOR "RoCEv2 Toolkit")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${ROCE_PACKAGE_CONTACT})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL ${ROCE_COMPONENTS})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ROCE_DEB_RELEASE})
# Debug information stays in the build tree, not in the packages.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")

set(CPACK_DEBIAN_TESTER_PACKAGE_NAME roce-tester)
# chromium: report --pdf prints with it.
set(CPACK_DEBIAN_TESTER_PACKAGE_SUGGESTS "roce-wireshark-plugin, wireshark | tshark, chromium")
set(CPACK_COMPONENT_TESTER_DESCRIPTION "RoCEv2 conformance tester for RDMA NICs
roce-tester plays the remote RoCEv2 peer of an RDMA NIC (the device under
test) from an ordinary Linux host with raw Ethernet frames, drives the NIC's
verbs through roce-agent on its host, and judges every packet against the
IBTA Annex A17 and transport rules. Each run leaves an HTML compliance report
with a ladder diagram per case, JUnit XML for CI servers, the results as JSON
and an annotated pcapng capture. It also crafts RoCEv2 packets, right or
deliberately wrong, and checks captures packet by packet, ICRC included.
The conformance suite is in /usr/share/roce-tester/conformance-cases.")

set(CPACK_DEBIAN_AGENT_PACKAGE_NAME roce-agent)
set(CPACK_DEBIAN_AGENT_PACKAGE_RECOMMENDS "ibverbs-providers")
set(CPACK_DEBIAN_AGENT_PACKAGE_SUGGESTS "roce-tester, rdma-core")
set(CPACK_COMPONENT_AGENT_DESCRIPTION "Agent for roce-tester on the host of the RDMA NIC under test
roce-agent runs verbs on the device under test for roce-tester over a
token-authenticated JSON protocol: queue pairs, memory regions, work requests
and completions. Its ibverbs backend drives a real RDMA NIC through
libibverbs; its soft backend is a conforming user-space RoCEv2 device on an
Ethernet interface, with fault profiles that each break one rule on purpose.")

if(TARGET rocev2)
  find_package(Wireshark CONFIG QUIET)
  set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME roce-wireshark-plugin)
  # A plugin loads only into the Wireshark major.minor it was built for.
  math(EXPR ROCE_WS_NEXT_MINOR "${Wireshark_MINOR_VERSION} + 1")
  set(CPACK_DEBIAN_PLUGIN_PACKAGE_DEPENDS
      "libwireshark-data (>= ${Wireshark_MAJOR_VERSION}.${Wireshark_MINOR_VERSION}), libwireshark-data (<< ${Wireshark_MAJOR_VERSION}.${ROCE_WS_NEXT_MINOR})")
  set(CPACK_DEBIAN_PLUGIN_PACKAGE_ENHANCES "wireshark, tshark")
  set(CPACK_COMPONENT_PLUGIN_DESCRIPTION "Wireshark dissector that decodes and validates RoCEv2
The rocev2 plugin decodes every RoCEv2 packet (IBTA Annex A17) and checks it:
the ICRC (with the likely cause of a wrong one), reserved bits, lengths, pad,
and per queue pair the PSN order, request/response matching, NAK and RNR
explanations. Each finding is an expert info naming its rule.")
endif()

include(CPack)

if(ROCE_BUILD_TESTS)
  add_test(NAME packaging_deb_and_install
    COMMAND ${PROJECT_SOURCE_DIR}/packaging/test-packaging.sh ${CMAKE_BINARY_DIR} "${ROCE_COMPONENTS}")
  set_tests_properties(packaging_deb_and_install PROPERTIES LABELS "packaging;full" RUN_SERIAL TRUE TIMEOUT 600
                       SKIP_RETURN_CODE 77)
endif()
