"""Checks of the Brook chart's rendered manifests, for scripts/helm-check.sh (run with the Python of
its kubernetes-validate venv, which has PyYAML and jsonschema).

  split RENDERED OUT_CORE OUT_SM      core objects to OUT_CORE, ServiceMonitors to OUT_SM (multi-doc)
  crd CRD_YAML SM_YAML                validates each ServiceMonitor against the CRD's v1 openAPIV3Schema,
                                      unknown fields counted as errors
  expect NAME RENDERED CHART_DIR ROOT checks the objects rendered for values set NAME (default or a
                                      ci/NAME.yaml) against the kinds expected and what the values say
  notes NAME RENDERED CHART_DIR       checks NOTES.txt as rendered into a ConfigMap (data.notes) by
                                      helm-check.sh: one replica said, the commands to try it
  service-links RENDERED              checks that every pod the chart makes (a Pod, or the template of a
                                      StatefulSet, Deployment, Job, ...) has enableServiceLinks: false

Each command prints one line per problem and exits 1 when there is any.
"""
import collections
import base64
import copy
import re
import sys

import yaml

NAMESPACE = "brook-ns"  # helm-check.sh renders with -n brook-ns and release name "rel"
RELEASE = "rel"

# What each values set must render: kind -> count. A ci file without an entry fails, so a new one
# gets its expectations written down.
EXPECTED_KINDS = {
    "default": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 2, "StatefulSet": 1, "Pod": 1},
    "tls-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 2, "StatefulSet": 1, "Pod": 1, "Secret": 1},
    "auth-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 2, "StatefulSet": 1, "Pod": 1, "Secret": 2},
    "persistence-off-values": {"ServiceAccount": 1, "ConfigMap": 1, "Service": 2, "StatefulSet": 1},
    "servicemonitor-values": {"ServiceAccount": 1, "ConfigMap": 3, "Service": 2, "StatefulSet": 1, "Pod": 1,
                              "Secret": 2, "ServiceMonitor": 1, "PodDisruptionBudget": 1},
    "existing-secrets-values": {"ConfigMap": 2, "Service": 2, "StatefulSet": 1, "Pod": 1, "ServiceMonitor": 1},
    "kafka-nodeport-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 3, "StatefulSet": 1, "Pod": 1},
    "kafka-external-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 3, "StatefulSet": 1, "Pod": 1, "Secret": 1},
    "kafka-auth-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 3, "StatefulSet": 1, "Pod": 1, "Secret": 1},
    "forward-values": {"ServiceAccount": 1, "ConfigMap": 2, "Service": 2, "StatefulSet": 1, "Pod": 1},
}

# The address the Kafka listener advertises (BROOK_KAFKA_ADVERTISED) for each values set, written out
# rather than derived from the values, so a wrong name in the chart cannot be matched by the same
# wrong name here: the client Service's in-cluster name by default (release "rel", namespace
# brook-ns, the set's clusterDomain), the external address when kafka.external is on; None: the
# listener is off. A ci file without an entry fails.
EXPECTED_KAFKA_ADVERTISED = {
    "default": "rel-brook.brook-ns.svc.cluster.local:9092",
    "tls-values": "rel-brook.brook-ns.svc.cluster.corp:9092",
    "auth-values": "rel-brook.brook-ns.svc.cluster.local:9092",  # auth.enabled: SASL over TLS (D57)
    "persistence-off-values": None,
    "servicemonitor-values": "rel-brook.brook-ns.svc.cluster.local:9092",
    "existing-secrets-values": "queue.brook-ns.svc.cluster.local:9092",  # fullnameOverride: queue
    "kafka-nodeport-values": "203.0.113.10:30092",
    "kafka-external-values": "kafka.example.com:9094",
    "kafka-auth-values": "203.0.113.10:30093",
    "forward-values": "rel-brook.brook-ns.svc.cluster.local:9092",
}


def load_docs(path):
    with open(path) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def cmd_split(rendered, out_core, out_sm):
    docs = load_docs(rendered)
    core = [d for d in docs if d.get("kind") != "ServiceMonitor"]
    sms = [d for d in docs if d.get("kind") == "ServiceMonitor"]
    for path, part in ((out_core, core), (out_sm, sms)):
        with open(path, "w") as f:
            yaml.safe_dump_all(part, f, sort_keys=False)
    print(" ".join(f"{k}={n}" for k, n in sorted(collections.Counter(d["kind"] for d in docs).items())))
    return 0


def strictify(node):
    """additionalProperties: false on every object schema that lists its properties and does not
    keep unknown fields, so a misspelt field is an error as the API server's strict decoding makes it."""
    if isinstance(node, dict):
        if ("properties" in node and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
        for v in node.values():
            strictify(v)
    elif isinstance(node, list):
        for v in node:
            strictify(v)


def cmd_crd(crd_path, sm_path):
    import jsonschema
    crd = next(d for d in load_docs(crd_path) if d.get("kind") == "CustomResourceDefinition")
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    schema = copy.deepcopy(version["schema"]["openAPIV3Schema"])
    strictify(schema)
    # metadata is checked by the API server, not by the CRD: only its shape here.
    schema["properties"]["metadata"] = {"type": "object"}
    validator = jsonschema.Draft4Validator(schema)
    problems = 0
    sms = load_docs(sm_path)
    if not sms:
        print("no ServiceMonitor to validate")
        return 1
    for sm in sms:
        name = sm.get("metadata", {}).get("name")
        if sm.get("apiVersion") != f"{crd['spec']['group']}/v1":
            print(f"ServiceMonitor {name}: apiVersion {sm.get('apiVersion')}, want {crd['spec']['group']}/v1")
            problems += 1
        for err in sorted(validator.iter_errors(sm), key=lambda e: list(e.absolute_path)):
            path = ".".join(str(p) for p in err.absolute_path) or "(root)"
            print(f"ServiceMonitor {name}: {path}: {err.message}")
            problems += 1
    return 1 if problems else 0


def merge(base, over):
    """Helm's merge of values: maps merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def effective_values(name, chart_dir):
    with open(f"{chart_dir}/values.yaml") as f:
        values = yaml.safe_load(f)
    if name != "default":
        with open(f"{chart_dir}/ci/{name}.yaml") as f:
            values = merge(values, yaml.safe_load(f) or {})
    return values


def cmd_expect(name, rendered, chart_dir, root):
    errs = []

    def need(cond, msg):
        if not cond:
            errs.append(msg)

    values = effective_values(name, chart_dir)
    docs = load_docs(rendered)
    kinds = collections.Counter(d["kind"] for d in docs)
    if name not in EXPECTED_KINDS:
        errs.append(f"no expected kinds written down for {name} (add it to EXPECTED_KINDS)")
    else:
        want = collections.Counter(EXPECTED_KINDS[name])
        for k in sorted(set(want) | set(kinds)):
            need(want[k] == kinds[k], f"{k}: rendered {kinds[k]}, expected {want[k]}")

    v = values
    tls, auth = v["tls"]["enabled"], v["auth"]["enabled"]
    sm_on, dash_on = v["metrics"]["serviceMonitor"]["enabled"], v["metrics"]["grafanaDashboard"]["enabled"]
    fullname = v["fullnameOverride"] or f"{RELEASE}-brook"
    by = {(d["kind"], d["metadata"]["name"]): d for d in docs}

    for d in docs:
        labels = d["metadata"].get("labels") or {}
        for key in ("app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
                    "app.kubernetes.io/managed-by", "helm.sh/chart"):
            need(key in labels, f"{d['kind']} {d['metadata']['name']}: no label {key}")
        need(d["metadata"].get("namespace") == NAMESPACE,
             f"{d['kind']} {d['metadata']['name']}: namespace {d['metadata'].get('namespace')}, want {NAMESPACE}")

    sts = by.get(("StatefulSet", fullname))
    if not sts:
        errs.append(f"no StatefulSet {fullname}")
        return report(errs)
    spec = sts["spec"]
    pod = spec["template"]["spec"]
    need(spec["replicas"] == 1, f"StatefulSet replicas {spec['replicas']}, want 1 (Brook is one node)")
    need(spec["serviceName"] == f"{fullname}-headless", f"StatefulSet serviceName {spec['serviceName']}")
    c = pod["containers"][0]
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
    vols = {vol["name"]: vol for vol in pod.get("volumes", [])}

    # probes: startup and readiness on /readyz, liveness on /healthz, HTTPS exactly when TLS is on
    scheme = "HTTPS" if tls else "HTTP"
    for probe, path in (("startupProbe", "/readyz"), ("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        g = (c.get(probe) or {}).get("httpGet") or {}
        need(g.get("path") == path, f"{probe} path {g.get('path')}, want {path}")
        need(g.get("scheme") == scheme, f"{probe} scheme {g.get('scheme')}, want {scheme} (tls.enabled={tls})")
        need(g.get("port") == "http", f"{probe} port {g.get('port')}, want http")
    need(c["startupProbe"]["failureThreshold"] * c["startupProbe"]["periodSeconds"] >= 600,
         "startupProbe allows less than 10 minutes for recovery")

    # security context
    psc, csc = pod.get("securityContext") or {}, c.get("securityContext") or {}
    need(psc.get("runAsNonRoot") is True and psc.get("runAsUser") == 10001 and psc.get("fsGroup") == 10001,
         f"pod securityContext {psc}")
    need(csc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem is not true")
    need(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation is not false")
    need((csc.get("capabilities") or {}).get("drop") == ["ALL"], "capabilities do not drop ALL")
    need((csc.get("seccompProfile") or {}).get("type") == "RuntimeDefault", "seccompProfile is not RuntimeDefault")
    need(mounts.get("/tmp") and "emptyDir" in vols.get(mounts["/tmp"], {}), "/tmp is not an emptyDir")
    grace = (v.get("config") or {}).get("shutdown.grace.ms", 5000)
    need(pod["terminationGracePeriodSeconds"] * 1000 >= grace + 10000,
         f"terminationGracePeriodSeconds {pod['terminationGracePeriodSeconds']} not above shutdown.grace.ms {grace}")

    # data volume: the claim template with persistence, an emptyDir without
    need(mounts.get("/var/lib/brook") == "data", "/var/lib/brook is not the data volume")
    vcts = spec.get("volumeClaimTemplates") or []
    if v["persistence"]["enabled"]:
        need(len(vcts) == 1 and vcts[0]["metadata"]["name"] == "data", "no volumeClaimTemplate data")
        need("data" not in vols, "persistence on but a data volume in the pod")
        if vcts:
            need(vcts[0]["spec"]["resources"]["requests"]["storage"] == v["persistence"]["size"], "claim size")
            need(vcts[0]["spec"]["accessModes"] == v["persistence"]["accessModes"], "claim accessModes")
    else:
        need(not vcts, "persistence off but a volumeClaimTemplate")
        need("emptyDir" in vols.get("data", {}), "persistence off but data is not an emptyDir")

    # config: the properties file mounted where BROOK_CONFIG says, and a checksum that rolls the pod
    cm = by.get(("ConfigMap", f"{fullname}-config"))
    need(cm is not None, "no config ConfigMap")
    props = (cm or {}).get("data", {}).get("brook.properties", "")
    need(env.get("BROOK_CONFIG") == "/etc/brook/config/brook.properties", f"BROOK_CONFIG {env.get('BROOK_CONFIG')}")
    need(mounts.get("/etc/brook/config") == "config", "config not mounted at /etc/brook/config")
    ann = spec["template"]["metadata"].get("annotations") or {}
    need(len(ann.get("checksum/config", "")) == 64, "no checksum/config annotation on the pod template")
    need(("tls.cert.file = /etc/brook/tls/tls.crt" in props) == tls, f"tls.cert.file in properties != tls {tls}")
    need(("auth.enabled = true" in props) == auth, f"auth.enabled in properties != auth {auth}")
    for key, val in (v.get("config") or {}).items():
        text = str(val).lower() if isinstance(val, bool) else str(val)
        need(f"\n{key} = {text}\n" in props, f"config {key}={text} not in brook.properties")

    # TLS material: generated Secret only without existingSecret; the mount holds tls.crt and tls.key
    gen_tls = by.get(("Secret", f"{fullname}-tls"))
    need((gen_tls is not None) == (tls and not v["tls"]["existingSecret"]), "generated TLS Secret present/absent wrongly")
    if gen_tls:
        need(set(gen_tls["data"]) == {"tls.crt", "tls.key", "ca.crt"}, f"TLS Secret keys {sorted(gen_tls['data'])}")
        key_pem = base64.b64decode(gen_tls["data"]["tls.key"]).decode()
        need(key_pem.startswith("-----BEGIN PRIVATE KEY-----"), "generated tls.key is not PKCS#8")
    if tls:
        need(mounts.get("/etc/brook/tls") == "tls", "TLS not mounted at /etc/brook/tls")
        need(vols.get("tls", {}).get("secret", {}).get("secretName") == (v["tls"]["existingSecret"] or f"{fullname}-tls"),
             "TLS volume names the wrong Secret")
    else:
        need("/etc/brook/tls" not in mounts, "TLS mounted with tls off")

    # tokens and permissions
    gen_tok = by.get(("Secret", f"{fullname}-tokens"))
    need((gen_tok is not None) == (auth and not v["auth"]["existingSecret"]), "generated tokens Secret present/absent wrongly")
    if gen_tok:
        want = set(v["auth"]["principals"])
        if v["tests"]["enabled"]:
            want.add(v["tests"]["principal"])
        if sm_on:
            want.add(v["metrics"]["serviceMonitor"]["principal"])
        need(set(gen_tok["data"]) == {"tokens"} | {f"token-{p}" for p in want}, f"tokens Secret keys {sorted(gen_tok['data'])}")
    if auth:
        need(mounts.get("/etc/brook/auth") == "tokens", "tokens not mounted at /etc/brook/auth")
        perms = cm["data"].get("permissions", "")
        for p in v["auth"]["permissions"]:
            need(f"\n{p['principal']} {','.join(p['permissions'])} {p['resource']}\n" in perms, f"permission {p} missing")
        if v["tests"]["enabled"]:
            need(f"\n{v['tests']['principal']} produce,consume,admin topic:{v['tests']['topic']}\n" in perms,
                 "the helm test principal has no permission line")

    # Services: a client one with grpc/http and a headless one
    svc = by.get(("Service", fullname))
    head = by.get(("Service", f"{fullname}-headless"))
    need(svc is not None and head is not None, "client or headless Service missing")
    if svc and head:
        ports = {p["name"]: p for p in svc["spec"]["ports"]}
        want_ports = {"grpc", "http"} | ({"kafka"} if EXPECTED_KAFKA_ADVERTISED.get(name) else set())
        need(set(ports) == want_ports, f"client Service ports {sorted(ports)}, want {sorted(want_ports)}")
        need(ports.get("grpc", {}).get("port") == v["service"]["ports"]["grpc"], "grpc port")
        need(ports.get("http", {}).get("appProtocol") == ("https" if tls else "http"), "http appProtocol")
        need(head["spec"].get("clusterIP") == "None" and head["spec"].get("publishNotReadyAddresses") is True,
             "headless Service is not headless/publishNotReadyAddresses")

    errs += kafka_problems(name, v, fullname, by, c, env, gen_tls)
    errs += forward_problems(v, props, mounts, vols)

    # ServiceMonitor: only when on; bearer token with auth, https + tlsConfig with TLS
    sm = by.get(("ServiceMonitor", fullname))
    need((sm is not None) == sm_on, f"ServiceMonitor rendered={sm is not None}, enabled={sm_on}")
    if sm:
        ep = sm["spec"]["endpoints"][0]
        need(ep["port"] == "http" and ep["path"] == "/metrics", "ServiceMonitor endpoint port/path")
        need(ep["scheme"] == ("https" if tls else "http"), f"ServiceMonitor scheme {ep['scheme']}")
        need(("tlsConfig" in ep) == tls, "ServiceMonitor tlsConfig present/absent wrongly")
        need(("authorization" in ep) == auth, "ServiceMonitor authorization present/absent wrongly")
        if auth and gen_tok:
            cred = ep["authorization"]["credentials"]
            need(cred["name"] == f"{fullname}-tokens" and cred["key"] in gen_tok["data"],
                 "ServiceMonitor token is not a key of the tokens Secret")
        sel = sm["spec"]["selector"]["matchLabels"]
        need(all(svc["metadata"]["labels"].get(k) == val for k, val in sel.items()), "ServiceMonitor does not select the client Service")
        need(not all(head["metadata"]["labels"].get(k) == val for k, val in sel.items()), "ServiceMonitor selects the headless Service too")

    # Grafana dashboard: only when on, sidecar label, the same JSON as deploy/grafana
    dash = by.get(("ConfigMap", f"{fullname}-dashboard"))
    need((dash is not None) == dash_on, f"dashboard ConfigMap rendered={dash is not None}, enabled={dash_on}")
    if dash:
        need(dash["metadata"]["labels"].get("grafana_dashboard") == "1", "dashboard ConfigMap lacks grafana_dashboard: \"1\"")
        with open(f"{root}/deploy/grafana/brook-dashboard.json") as f:
            want_json = f.read()
        need(dash["data"]["brook-dashboard.json"].rstrip("\n") == want_json.rstrip("\n"),
             "dashboard ConfigMap JSON differs from deploy/grafana/brook-dashboard.json")

    pdb = [d for d in docs if d["kind"] == "PodDisruptionBudget"]
    need(bool(pdb) == v["podDisruptionBudget"]["enabled"], "PodDisruptionBudget present/absent wrongly")

    # helm test pod: a test hook running the script from its ConfigMap against the client Service
    test = by.get(("Pod", f"{fullname}-test"))
    need((test is not None) == v["tests"]["enabled"], "helm test pod present/absent wrongly")
    if test:
        need(test["metadata"]["annotations"].get("helm.sh/hook") == "test", "test pod is not a test hook")
        tc = test["spec"]["containers"][0]
        tenv = {e["name"]: e.get("value") for e in tc.get("env", [])}
        need(tc["command"] == ["sh", "/scripts/test-produce-consume.sh"], f"test command {tc['command']}")
        need(tc["image"] == c["image"], "test pod image differs from the broker's")
        need(tenv.get("BROOK_BROKER") == f"{fullname}.{NAMESPACE}.svc:{v['service']['ports']['grpc']}",
             f"BROOK_BROKER {tenv.get('BROOK_BROKER')}")
        need(("BROOK_TLS_CA" in tenv) == tls, "BROOK_TLS_CA present/absent wrongly")
        need(("BROOK_TOKEN_FILE" in tenv) == auth, "BROOK_TOKEN_FILE present/absent wrongly")
        need(tc.get("securityContext") == csc and test["spec"].get("securityContext") == psc,
             "test pod security context differs from the broker's")
        script = by.get(("ConfigMap", f"{fullname}-test-script"))
        with open(f"{chart_dir}/files/test-produce-consume.sh") as f:
            want_script = f.read()
        need(script is not None and script["data"]["test-produce-consume.sh"].rstrip("\n") == want_script.rstrip("\n"),
             "test script ConfigMap differs from files/test-produce-consume.sh")
    return report(errs)


def properties(text):
    """brook.properties as java.util.Properties reads it (key = value lines; backslash escapes)."""
    out = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" = ")
        out[key] = re.sub(r"\\(.)", r"\1", value)
    return out


def forward_problems(v, props, mounts, vols):
    """forward.routes: every route key as a forward.<route>.<key> line, and nothing else under forward.;
    forward.secrets: each Secret mounted at /etc/brook/kafka/<name>."""
    errs = []
    want = {}
    for route, keys in (v["forward"]["routes"] or {}).items():
        for key, val in keys.items():
            want[f"forward.{route}.{key}"] = str(val).lower() if isinstance(val, bool) else str(val)
    got = {k: val for k, val in properties(props).items() if k.startswith("forward.")}
    if got != want:
        for k in sorted(set(got) | set(want)):
            if got.get(k) != want.get(k):
                errs.append(f"brook.properties {k}: {got.get(k)!r}, values say {want.get(k)!r}")
    secrets = v["forward"]["secrets"] or []
    kafka_mounts = {p: n for p, n in mounts.items() if p.startswith("/etc/brook/kafka/")}
    if sorted(kafka_mounts) != sorted(f"/etc/brook/kafka/{s}" for s in secrets):
        errs.append(f"Kafka Secret mounts {sorted(kafka_mounts)}, forward.secrets {secrets}")
    for s in secrets:
        vol = vols.get(kafka_mounts.get(f"/etc/brook/kafka/{s}"), {})
        if vol.get("secret", {}).get("secretName") != s:
            errs.append(f"/etc/brook/kafka/{s} is not the Secret {s}: {vol}")
    return errs


def san_names(cert_b64):
    """The DNS names and IP addresses of a base64 PEM certificate's subjectAltName (openssl's view)."""
    import subprocess
    pem = base64.b64decode(cert_b64)
    out = subprocess.run(["openssl", "x509", "-noout", "-ext", "subjectAltName"], input=pem,
                         capture_output=True, check=True).stdout.decode()
    return {part.strip().split(":", 1)[1] for line in out.splitlines()[1:] for part in line.split(",") if ":" in part}


def kafka_problems(name, v, fullname, by, c, env, gen_tls):
    """The Kafka listener: bound on all interfaces in the pod (BROOK_KAFKA_LISTEN=0.0.0.0:9092), the
    container port and the Services' port "kafka", the advertised address as EXPECTED_KAFKA_ADVERTISED
    says, that name in a generated certificate, and the external Service when kafka.external is on."""
    errs = []

    def need(cond, msg):
        if not cond:
            errs.append(msg)

    if name not in EXPECTED_KAFKA_ADVERTISED:
        return [f"no expected Kafka advertised address written down for {name} (add it to EXPECTED_KAFKA_ADVERTISED)"]
    want_adv = EXPECTED_KAFKA_ADVERTISED[name]
    k = v.get("kafka", {})
    on = bool(k.get("enabled"))  # under auth too: its clients authenticate with SASL (D57)
    need(on == (want_adv is not None), f"kafka.enabled {k.get('enabled')}, but EXPECTED_KAFKA_ADVERTISED says {want_adv}")
    cports = {p["name"]: p for p in c.get("ports", [])}
    svc, head = by.get(("Service", fullname)), by.get(("Service", f"{fullname}-headless"))
    ext = by.get(("Service", f"{fullname}-kafka-external"))
    if want_adv is None:
        # off: an empty kafka.listen turns the listener off (the broker's default would be localhost:9092)
        need(env.get("BROOK_KAFKA_LISTEN") == "", f"BROOK_KAFKA_LISTEN {env.get('BROOK_KAFKA_LISTEN')!r}, want '' (off)")
        need("BROOK_KAFKA_ADVERTISED" not in env, "BROOK_KAFKA_ADVERTISED set with the listener off")
        need("kafka" not in cports, "container port kafka with the listener off")
        for s in (svc, head):
            need(s is None or all(p["name"] != "kafka" for p in s["spec"]["ports"]),
                 f"Service {s and s['metadata']['name']} has port kafka with the listener off")
        need(ext is None, "external Kafka Service with the listener off")
        return errs

    need(env.get("BROOK_KAFKA_LISTEN") == "0.0.0.0:9092", f"BROOK_KAFKA_LISTEN {env.get('BROOK_KAFKA_LISTEN')}, want 0.0.0.0:9092")
    need(env.get("BROOK_KAFKA_ADVERTISED") == want_adv, f"BROOK_KAFKA_ADVERTISED {env.get('BROOK_KAFKA_ADVERTISED')}, want {want_adv}")
    need(cports.get("kafka", {}).get("containerPort") == 9092 and cports["kafka"].get("protocol") == "TCP",
         f"container port kafka {cports.get('kafka')}, want 9092/TCP")
    for s, port in ((svc, v["service"]["ports"].get("kafka", 9092)), (head, 9092)):
        if s is None:
            continue
        sp = {p["name"]: p for p in s["spec"]["ports"]}.get("kafka", {})
        need(sp.get("port") == port and sp.get("targetPort") == "kafka" and sp.get("protocol") == "TCP",
             f"Service {s['metadata']['name']} port kafka {sp}, want port {port} to targetPort kafka")
        need("appProtocol" not in sp, f"Service {s['metadata']['name']} port kafka has appProtocol {sp.get('appProtocol')}")
    if svc and v["service"]["type"] != "ClusterIP" and v["service"].get("nodePorts", {}).get("kafka"):
        sp = {p["name"]: p for p in svc["spec"]["ports"]}["kafka"]
        need(sp.get("nodePort") == v["service"]["nodePorts"]["kafka"], f"client Service kafka nodePort {sp.get('nodePort')}")

    e = k.get("external", {})
    need((ext is not None) == bool(e.get("enabled")), f"external Kafka Service rendered={ext is not None}, kafka.external.enabled={e.get('enabled')}")
    if ext:
        adv_port = int(want_adv.rsplit(":", 1)[1])
        es = ext["spec"]
        need(es["type"] == e["type"], f"external Kafka Service type {es['type']}, want {e['type']}")
        need(es["selector"] == svc["spec"]["selector"], "external Kafka Service selects another pod than the client Service")
        need(len(es["ports"]) == 1, f"external Kafka Service ports {es['ports']}, want only kafka")
        ep = es["ports"][0]
        need(ep["name"] == "kafka" and ep["targetPort"] == "kafka", f"external Kafka Service port {ep}")
        if e["type"] == "NodePort":
            need(ep.get("nodePort") == e["nodePort"] == adv_port,
                 f"external NodePort {ep.get('nodePort')} (kafka.external.nodePort {e['nodePort']}), advertised port {adv_port}")
        else:
            need(ep["port"] == adv_port, f"external LoadBalancer port {ep['port']}, advertised port {adv_port}")
        need(ext["metadata"]["labels"].get("brook.io/service") == "kafka-external",
             "external Kafka Service lacks the label brook.io/service: kafka-external")
        for key, val in (e.get("annotations") or {}).items():
            need((ext["metadata"].get("annotations") or {}).get(key) == val, f"external Kafka Service lacks annotation {key}")

    # A generated certificate names the advertised host (clients check it against the name they dial).
    if gen_tls:
        sans = san_names(gen_tls["data"]["tls.crt"])
        host = want_adv.rsplit(":", 1)[0]
        need(host in sans, f"generated certificate does not name the advertised host {host}: {sorted(sans)}")
        in_cluster = f"{fullname}.{NAMESPACE}.svc.{v['clusterDomain']}"
        need(in_cluster in sans, f"generated certificate does not name {in_cluster}: {sorted(sans)}")
    return errs


def cmd_notes(name, rendered, chart_dir):
    values = effective_values(name, chart_dir)
    notes = load_docs(rendered)[0]["data"]["notes"]
    want = ["ONE replica", f"kubectl -n {NAMESPACE} port-forward svc/", "grpcurl ", " list",
            "brook topic create ", "| brook produce ", "brook consume ", "/readyz", "/metrics"]
    if values["tls"]["enabled"]:
        want += ["--tls-ca ca.crt", "grpcurl -cacert ca.crt", "https://localhost:7080"]
    else:
        want += ["grpcurl -plaintext", "http://localhost:7080"]
    if values["auth"]["enabled"]:
        want += ["BROOK_TOKEN", "authorization: Bearer $BROOK_TOKEN"]
    if values["tests"]["enabled"]:
        want += [f"helm test {RELEASE}"]
    if not values["persistence"]["enabled"]:
        want += ["ALL DATA IS LOST"]
    adv = EXPECTED_KAFKA_ADVERTISED.get(name)
    if adv:
        want += [f"Kafka clients bootstrap from {adv}", f"kcat -b {adv} -L"]
        if values["auth"]["enabled"]:
            protocol = "sasl_ssl" if values["tls"]["enabled"] else "sasl_plaintext"
            want += ["SASL PLAIN or SCRAM-SHA-256/512", f"-X security.protocol={protocol}",
                     "-X sasl.mechanisms=PLAIN", '-X sasl.password="$BROOK_TOKEN"']
            if not values["tls"]["enabled"]:
                want += ["the token crosses the network in clear"]
        elif values["tls"]["enabled"]:
            want += ["-X security.protocol=ssl"]
        if values["tls"]["enabled"]:
            want += ["-X ssl.ca.location=ca.crt"]
    else:
        want += ["The Kafka listener is off"]
    return report([f"NOTES.txt does not say {w!r}" for w in want if w not in notes])


def pod_specs(doc):
    """The pod spec an object runs, or None: a Pod's own, a workload's template, a CronJob's job's."""
    kind, spec = doc.get("kind"), doc.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind in ("StatefulSet", "Deployment", "DaemonSet", "ReplicaSet", "Job"):
        return (spec.get("template") or {}).get("spec")
    if kind == "CronJob":
        job = (spec.get("jobTemplate") or {}).get("spec") or {}
        return (job.get("template") or {}).get("spec")
    return None


def cmd_service_links(rendered):
    """Kubernetes gives a pod service-link variables for every Service of its namespace unless
    enableServiceLinks is false: for the chart's Service "brook" that is BROOK_PORT,
    BROOK_SERVICE_HOST, ..., names in the broker's own BROOK_* namespace."""
    errs, pods = [], 0
    for d in load_docs(rendered):
        spec = pod_specs(d)
        if spec is None:
            continue
        pods += 1
        if spec.get("enableServiceLinks") is not False:
            errs.append(f"{d['kind']} {d['metadata']['name']}: enableServiceLinks is "
                        f"{spec.get('enableServiceLinks', 'not set (true)')}, want false")
    if pods == 0:
        errs.append("no pod rendered")
    return report(errs)


def report(errs):
    for e in errs:
        print(e)
    return 1 if errs else 0


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "split":
        return cmd_split(*args)
    if cmd == "crd":
        return cmd_crd(*args)
    if cmd == "expect":
        return cmd_expect(*args)
    if cmd == "notes":
        return cmd_notes(*args)
    if cmd == "service-links":
        return cmd_service_links(*args)
    print(f"unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
