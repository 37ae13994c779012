# Installs one man page, run by `cmake --install` and cpack (install(CODE)
# sets the ROCE_MAN_* variables): the paths in the page are those of the
# prefix being installed to, known only now.
set(ROCE_CASES_DIR "${CMAKE_INSTALL_PREFIX}/${ROCE_MAN_DATADIR}/roce-tester/conformance-cases")
set(ROCE_DOC_DIR "${CMAKE_INSTALL_PREFIX}/${ROCE_MAN_DATAROOTDIR}/doc/roce-${ROCE_MAN_COMPONENT}")
# roff: a path's hyphens are hyphen-minus signs, and no place to break a line.
string(REPLACE "-" "\\-" ROCE_CASES_DIR "${ROCE_CASES_DIR}")
string(REPLACE "-" "\\-" ROCE_DOC_DIR "${ROCE_DOC_DIR}")
set(ROCE_MAN_DATE "${ROCE_MAN_BUILD_DATE}")
set(PROJECT_VERSION "${ROCE_MAN_VERSION}")
set(out "${ROCE_MAN_STAGE}/${ROCE_MAN_NAME}")
configure_file("${ROCE_MAN_SRC}" "${out}" @ONLY)
execute_process(COMMAND gzip -9 -n -f "${out}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip ${out} failed")
endif()
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${ROCE_MAN_MANDIR}/man${ROCE_MAN_SECTION}" TYPE FILE FILES "${out}.gz")
