# The image a pull request's GPU run measures when the PR changes this directory
# (catalogs/benchmark.yaml images.build; docs/images.md): the catalog's ATOM image, pinned
# by digest, with AITER's newest nightly wheel and ATOM at ATOM_REF, as the system we
# replace built atom_sglang:ci for its PR runs (docs/fidelity.md). The build arguments
# are the catalog's; BASE_IMAGE is the pinned base.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}

ARG AITER_INDEX_URL
ARG ATOM_REPOSITORY
ARG ATOM_REF

RUN python3 -m pip uninstall -y amd-aiter \
 && python3 -m pip install --no-cache-dir --upgrade --extra-index-url "${AITER_INDEX_URL}" amd-aiter

RUN python3 -m pip uninstall -y atom \
 && rm -rf /app/ATOM \
 && git clone "${ATOM_REPOSITORY}" /app/ATOM \
 && git -C /app/ATOM checkout "${ATOM_REF}" \
 && python3 -m pip install --no-cache-dir --no-deps -e /app/ATOM

RUN python3 -m pip show amd-aiter atom sglang
