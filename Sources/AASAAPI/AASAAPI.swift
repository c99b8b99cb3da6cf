// The types and server stubs of this target are generated at build time from openapi.yaml (a
// symlink to the top-level contract) by the OpenAPIGenerator plugin; see openapi-generator-config.yaml.
