import AASACore
import Mustache

/// The console's Mustache templates. `{{x}}` escapes HTML, so anything a team wrote (a display name,
/// a rule comment, a reason) is text on the page; the pages use `{{{x}}}` only for SVG this
/// server drew itself (`PathSpaceMap`, `CDNTimeline`), whose every text is escaped when drawn.
enum ConsoleTemplates {
    /// The templates parsed once. `buildApplication` asks for it before the server starts, so a
    /// template that does not parse stops aasad at start-up with Mustache's error, not a page.
    static let loaded: Result<MustacheLibrary, any Error> = Result {
        MustacheContentTypes.register(HTMLText(), named: HTMLText.name)
        var library = MustacheLibrary()
        for (name, text) in templates {
            // Each names the escaping below; a partial renders with its caller's.
            try library.register("{{% CONTENT_TYPE: \(HTMLText.name)}}" + text, named: name)
        }
        return library
    }

    /// HTML escaping as Mustache's own (`< > & " '`), through `SVGText.escape`, which works a byte
    /// at a time: Mustache's looks each character up in a dictionary, and hashing was a tenth of the
    /// test page's profile.
    struct HTMLText: MustacheContentType {
        static let name = "CONSOLE_HTML"

        func escapeText(_ text: String) -> String { SVGText.escape(text) }
    }

    static func render(_ name: String, _ context: [String: Any]) -> String {
        (try? loaded.get())?.render(context, withTemplate: name) ?? ""
    }

    static let templates: [String: String] = [
        "layout": layout, "sign-in": signIn, "problem": problem, "overview": overview, "domain": domain,
        "test": test, "publish": publish, "published": published, "revisions": revisions, "revision": revision,
        "rollback": rollback, "apple": apple, "teams": teams, "team": team, "audit": audit,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · aasad console</title>
        <link rel="stylesheet" href="/console/static/console.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to the content</a>
        <header>
        <span class="brand">aasad</span>
        {{#who}}
        <nav aria-label="Console">
        <a href="/console/">Overview</a>
        <a href="/console/teams">Teams</a>
        <a href="/console/audit">Audit</a>
        </nav>
        <span class="who">{{who}}</span>
        <form method="post" action="/console/sign-out" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Sign out</button>
        </form>
        {{/who}}
        </header>
        <main id="main">
        {{^empty(crumbs)}}<p class="crumbs">{{#crumbs}}<a href="{{href}}">{{text}}</a> / {{/crumbs}}</p>\
        {{/empty(crumbs)}}
        <h1>{{title}}</h1>
        {{$content}}{{/content}}
        </main>
        </body>
        </html>
        """

    static let signIn = """
        {{<layout}}{{$content}}
        <p>Paste an API token once: the console keeps a session for it, never the token.</p>
        {{#error}}<p class="bad" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/console/sign-in" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" required>
        <button type="submit">Sign in</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let problem = """
        {{<layout}}{{$content}}
        <section class="problem" role="alert">
        <h2>{{problem.title}}</h2>
        {{#problem.detail}}<p>{{problem.detail}}</p>{{/problem.detail}}
        {{^empty(problem.errors)}}
        <ul>{{#problem.errors}}<li><code>{{field}}</code> ({{rule}}): {{message}}</li>{{/problem.errors}}</ul>
        {{/empty(problem.errors)}}
        {{^empty(problem.violations)}}
        <ul>{{#problem.violations}}<li>{{text}}</li>{{/problem.violations}}</ul>
        {{/empty(problem.violations)}}
        <p class="muted">HTTP {{problem.status}} · {{problem.slug}} · request {{problem.requestID}}</p>
        </section>
        {{#back}}<p><a href="{{back}}">Back</a></p>{{/back}}
        {{/content}}{{/layout}}
        """

    static let overview = """
        {{<layout}}{{$content}}
        {{#empty(domains)}}<p>No domain is visible to this token.</p>{{/empty(domains)}}
        {{^empty(domains)}}
        <table>
        <caption>Every domain this token can see</caption>
        <thead><tr><th scope="col">Domain</th><th scope="col">Environment</th><th scope="col">Revision</th>
        <th scope="col">Draft</th><th scope="col">Apple's CDN</th><th scope="col">Google</th>
        <th scope="col">Last probe</th>
        <th scope="col">Golden URLs</th><th scope="col">Suspensions</th></tr></thead>
        <tbody>
        {{#domains}}
        <tr>
        <th scope="row"><a href="/console/domains/{{host}}">{{host}}</a></th>
        <td>{{environment}}</td>
        <td>{{#currentRevision}}{{currentRevision}}{{/currentRevision}}{{^currentRevision}}none{{/currentRevision}}</td>
        <td>{{#draftDiffers}}<span class="warn">differs</span>{{/draftDiffers}}\
        {{^draftDiffers}}same{{/draftDiffers}}</td>
        <td><span class="state-{{cdnState}}">{{cdnState}}</span>{{#lag}} ({{lag}} behind){{/lag}}</td>
        <td>{{#google}}<a href="/console/domains/{{host}}/apple"{{#googleBad}} class="bad"{{/googleBad}}>{{google}}</a>\
        {{/google}}{{^google}}no Android app{{/google}}</td>
        <td>{{#probe}}{{#ok}}ok{{/ok}}{{^ok}}<span class="bad">{{problems}}</span>{{/ok}} \
        <a href="/console/domains/{{host}}/apple">{{checkedAt}}</a>{{/probe}}{{^probe}}never{{/probe}}</td>
        <td>{{#broken}}<span class="bad">{{broken}} broken</span>{{/broken}}{{^broken}}holding{{/broken}}</td>
        <td>{{#suspended}}<span class="bad">{{suspended}}</span>{{/suspended}}{{^suspended}}none{{/suspended}}</td>
        </tr>
        {{/domains}}
        </tbody>
        </table>
        {{/empty(domains)}}
        {{#next}}<p><a href="/console/?cursor={{next}}">Next page</a></p>{{/next}}
        {{/content}}{{/layout}}
        """

    static let domain = """
        {{<layout}}{{$content}}
        <p class="actions">
        <a href="/console/domains/{{host}}/test">Test a URL</a>
        <a href="/console/domains/{{host}}/publish">Publish</a>
        <a href="/console/domains/{{host}}/revisions">Revisions</a>
        <a href="/console/domains/{{host}}/apple">Apple and Google</a>
        </p>
        <dl class="facts">
        <dt>Environment</dt><dd>{{domain.environment}}</dd>
        <dt>Current revision</dt><dd>{{#domain.currentRevision}}{{domain.currentRevision}}{{/domain.currentRevision}}\
        {{^domain.currentRevision}}never published{{/domain.currentRevision}}</dd>
        <dt>Auto-publish</dt><dd>{{#domain.autoPublish}}on{{/domain.autoPublish}}\
        {{^domain.autoPublish}}off{{/domain.autoPublish}}</dd>
        <dt>Aliases</dt><dd>{{#domain.aliases}}{{.}} {{/domain.aliases}}{{^domain.aliases}}none{{/domain.aliases}}</dd>
        </dl>
        <section aria-labelledby="map-h">
        <h2 id="map-h">Path space</h2>
        <p class="muted">Each row is a path prefix, coloured by the team whose grant holds it; a grant's own prefix is
        outlined. Dots are rules where they act (hollow: exclude); a cross marks a shadowed rule, a ring an overlap
        between teams, a dashed red frame a protected path.</p>
        {{{map}}}
        </section>
        <section aria-labelledby="rules-h">
        <h2 id="rules-h">Rules per app, in order</h2>
        {{#apps}}
        <h3>{{appID}} <span class="muted">({{team}})</span></h3>
        <ol class="rules">
        {{#rules}}<li><code>{{text}}</code>{{#comment}} <span class="muted">{{comment}}</span>{{/comment}}\
        {{#shadowed}} <span class="warn">shadowed</span>{{/shadowed}}</li>{{/rules}}
        </ol>
        {{/apps}}
        {{^apps}}<p>No app has rules here.</p>{{/apps}}
        </section>
        <section aria-labelledby="android-h">
        <h2 id="android-h">Android apps, in order</h2>
        {{#android}}
        <h3>{{package}} <span class="muted">({{team}})</span></h3>
        <p class="muted">{{#relations}}{{.}} {{/relations}}{{#follows}}· the rules of {{follows}}{{/follows}}\
        {{#manifestDecides}}· every URL its manifest declares{{/manifestDecides}}</p>
        {{^empty(rules)}}<ol class="rules">{{#rules}}<li><code>{{.}}</code></li>{{/rules}}</ol>{{/empty(rules)}}
        {{/android}}
        {{^android}}<p>No Android app is named here.</p>{{/android}}
        </section>
        {{^empty(overlaps)}}
        <section aria-labelledby="overlap-h">
        <h2 id="overlap-h">Overlaps between teams</h2>
        <ul>{{#overlaps}}<li>{{text}}</li>{{/overlaps}}</ul>
        </section>
        {{/empty(overlaps)}}
        <section aria-labelledby="golden-h">
        <h2 id="golden-h">Golden URLs</h2>
        {{#empty(golden)}}<p>None pinned.</p>{{/empty(golden)}}
        {{^empty(golden)}}
        <table><thead><tr><th scope="col">URL</th><th scope="col">Expected</th><th scope="col">Draft</th>
        <th scope="col">Published</th></tr></thead><tbody>
        {{#golden}}<tr><td><code>{{url}}</code></td><td>{{expected}}</td>
        <td class="{{draftClass}}">{{draft}}</td><td class="{{publishedClass}}">{{published}}</td></tr>{{/golden}}
        </tbody></table>
        {{/empty(golden)}}
        </section>
        <section aria-labelledby="grants-h">
        <h2 id="grants-h">Grants</h2>
        <ul>{{#grants}}<li><strong>{{team}}</strong>: {{#pathPrefixes}}<code>{{.}}</code> {{/pathPrefixes}}\
        {{#services}}<span class="muted">service {{.}}</span> {{/services}}</li>\
        {{/grants}}</ul>
        </section>
        {{^empty(suspensions)}}
        <section aria-labelledby="susp-h">
        <h2 id="susp-h">Suspensions</h2>
        <ul>{{#suspensions}}<li><strong>{{team}}</strong> since {{createdAt}} by {{createdBy}}: {{reason}}</li>\
        {{/suspensions}}</ul>
        </section>
        {{/empty(suspensions)}}
        <section aria-labelledby="roots-h">
        <h2 id="roots-h">Where the files are published</h2>
        {{#empty(targets)}}<p>No web root, bucket or purge: the files are served by aasad only.</p>{{/empty(targets)}}
        <ul>{{#targets}}<li>{{kind}} <code>{{name}}</code>: <span class="{{outcomeClass}}">{{outcome}}</span>\
        {{#edge}}<br><span class="bad">edge: {{text}}</span>{{/edge}}</li>{{/targets}}</ul>
        </section>
        <section aria-labelledby="files-h">
        <h2 id="files-h">The files as served</h2>
        <h3>apple-app-site-association</h3>
        {{#aasa}}<pre tabindex="0">{{aasa}}</pre>{{/aasa}}{{^aasa}}<p>Not served (never published).</p>{{/aasa}}
        <h3>assetlinks.json</h3>
        {{#assetLinks}}<pre tabindex="0">{{assetLinks}}</pre>{{/assetLinks}}\
        {{^assetLinks}}<p>Not served.</p>{{/assetLinks}}
        </section>
        {{/content}}{{/layout}}
        """

    static let test = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/domains/{{host}}/test" class="stack">
        <label for="url">URL</label>
        <input id="url" name="url" type="url" value="{{url}}" required>
        <fieldset><legend>Against</legend>
        <label><input type="radio" name="source" value="draft" {{#draft}}checked{{/draft}}> the draft</label>
        <label><input type="radio" name="source" value="published" {{^draft}}checked{{/draft}}>
        the published file</label>
        </fieldset>
        <button type="submit">Test</button>
        </form>
        {{#result}}
        <section aria-labelledby="answer-h">
        <h2 id="answer-h">Answer</h2>
        <dl class="facts">
        <dt>iOS</dt><dd>{{#appID}}<strong>{{appID}}</strong> opens it{{#rule}}, by rule <code>{{rule.path}}</code>\
         of {{rule.team}}{{/rule}}{{/appID}}{{^appID}}no app opens it; Safari does{{/appID}}</dd>
        <dt>Android</dt><dd>{{#androidOpens}}<strong>{{.}}</strong> {{/androidOpens}}\
        {{^androidOpens}}no app opens it{{/androidOpens}}</dd>
        {{#disagreement}}<dt>Platforms</dt><dd class="warn">{{disagreement}}</dd>{{/disagreement}}
        {{#revision}}<dt>Revision</dt><dd>{{revision}}</dd>{{/revision}}
        </dl>
        <h2>Explanation</h2>
        {{#explanation.apps}}
        <h3>{{appID}}: {{decision}}</h3>
        <ol class="rules">{{#rules}}<li><code>{{text}}</code> {{outcome}}</li>{{/rules}}</ol>
        {{/explanation.apps}}
        {{#explanation.closest}}<p>Closest rule: <code>{{text}}</code> {{outcome}}</p>{{/explanation.closest}}
        {{^empty(explanation.hints)}}
        <h3>Hints</h3>
        <ul>{{#explanation.hints}}<li><code>{{code}}</code>: {{message}}</li>{{/explanation.hints}}</ul>
        {{/empty(explanation.hints)}}
        </section>
        {{/result}}
        {{/content}}{{/layout}}
        """

    static let diffBlock = """
        {{^empty(diffLines)}}<pre class="diff" tabindex="0">{{#diffLines}}{{.}}
        {{/diffLines}}</pre>{{/empty(diffLines)}}
        """

    static let publish = """
        {{<layout}}{{$content}}
        <h2>What changes</h2>
        \(diffBlock)
        {{^empty(androidDiffLines)}}<h3>assetlinks.json</h3>
        <pre class="diff" tabindex="0">{{#androidDiffLines}}{{.}}
        {{/androidDiffLines}}</pre>{{/empty(androidDiffLines)}}
        <h2>Golden URLs on the draft</h2>
        {{^empty(broken)}}<ul>{{#broken}}<li class="bad"><code>{{url}}</code>: {{draft}}</li>{{/broken}}</ul>\
        {{/empty(broken)}}
        {{#empty(broken)}}<p>Every golden URL holds.</p>{{/empty(broken)}}
        <h2>Would it publish?</h2>
        {{#refusal}}<section class="problem" role="alert" id="refusal">
        <p><strong>Publishing now would be refused</strong>: {{title}}{{#detail}}. {{detail}}{{/detail}}</p>
        {{^empty(errors)}}<ul>{{#errors}}<li><code>{{field}}</code> ({{rule}}): {{message}}</li>{{/errors}}</ul>\
        {{/empty(errors)}}
        {{^empty(violations)}}<ul>{{#violations}}<li>{{text}}</li>{{/violations}}</ul>{{/empty(violations)}}
        <p class="muted">HTTP {{status}} · {{slug}}</p>
        </section>{{/refusal}}
        {{^refusal}}{{#canPublish}}<p id="would-publish">The publish was run and rolled back: every check passes.</p>\
        {{/canPublish}}{{/refusal}}
        {{#canPublish}}
        <form method="post" action="/console/domains/{{host}}/publish" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="reason">Reason</label>
        <input id="reason" name="reason" required maxlength="1000">
        <button type="submit">Publish</button>
        </form>
        {{/canPublish}}
        {{^canPublish}}<p class="muted">This token cannot publish.</p>{{/canPublish}}
        {{/content}}{{/layout}}
        """

    static let published = """
        {{<layout}}{{$content}}
        <p role="status">Revision {{result.revision.number}}{{^result.created}} (nothing changed){{/result.created}}:
        {{result.revision.reason}}</p>
        <h2>Targets</h2>
        <ul>{{#result.targets}}<li><code>{{webRoot}}</code>: {{outcome}}{{#error}} ({{error}}){{/error}}</li>\
        {{/result.targets}}</ul>
        {{#result.cdn}}<p>{{result.cdn}}</p>{{/result.cdn}}
        <p><a href="/console/domains/{{host}}">Back to {{host}}</a></p>
        {{/content}}{{/layout}}
        """

    static let revisions = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/domains/{{host}}/revisions/diff" class="inline-form">
        <label for="from">Diff from</label> <input id="from" name="from" inputmode="numeric" size="6" required\
         value="{{diffFrom}}">
        <label for="to">to</label> <input id="to" name="to" size="6" required\
         value="{{diffTo}}{{^diffTo}}draft{{/diffTo}}">
        <button type="submit">Show</button>
        </form>
        {{#diffLines}}\(diffBlock){{/diffLines}}
        <table><thead><tr><th scope="col">Revision</th><th scope="col">When</th><th scope="col">Who</th>
        <th scope="col">Reason</th><th scope="col">Bytes</th></tr></thead><tbody>
        {{#items}}<tr><th scope="row"><a href="/console/domains/{{host}}/revisions/{{number}}">{{number}}</a>\
        {{#rollbackOf}} (rollback to {{rollbackOf}}){{/rollbackOf}}</th>
        <td>{{createdAt}}</td><td>{{actor.name}}</td><td>{{reason}}</td><td>{{byteCount}}</td></tr>{{/items}}
        </tbody></table>
        {{#next}}<p><a href="/console/domains/{{host}}/revisions?cursor={{next}}">Older</a></p>{{/next}}
        <section aria-labelledby="android-rev-h">
        <h2 id="android-rev-h">assetlinks.json revisions</h2>
        <form method="get" action="/console/domains/{{host}}/revisions/diff" class="inline-form">
        <input type="hidden" name="file" value="assetlinks">
        <label for="afrom">Diff from</label> <input id="afrom" name="from" inputmode="numeric" size="6"\
         required value="{{androidFrom}}">
        <label for="ato">to</label> <input id="ato" name="to" size="6" required\
         value="{{androidTo}}{{^androidTo}}draft{{/androidTo}}">
        <button type="submit">Show</button>
        </form>
        {{^empty(androidDiffLines)}}<pre class="diff" tabindex="0">{{#androidDiffLines}}{{.}}
        {{/androidDiffLines}}</pre>{{/empty(androidDiffLines)}}
        {{#empty(androidItems)}}<p>Never published.</p>{{/empty(androidItems)}}
        {{^empty(androidItems)}}
        <table><thead><tr><th scope="col">Revision</th><th scope="col">When</th><th scope="col">Who</th>
        <th scope="col">Reason</th><th scope="col">Bytes</th></tr></thead><tbody>
        {{#androidItems}}<tr><th scope="row">{{number}}{{#rollbackOf}} (rollback to {{rollbackOf}}){{/rollbackOf}}</th>
        <td>{{createdAt}}</td><td>{{actor.name}}</td><td>{{reason}}</td><td>{{byteCount}}</td></tr>{{/androidItems}}
        </tbody></table>
        {{/empty(androidItems)}}
        </section>
        {{/content}}{{/layout}}
        """

    static let revision = """
        {{<layout}}{{$content}}
        <p>By {{revision.actor.name}} at {{revision.createdAt}}: {{revision.reason}}. SHA-256
        <code>{{revision.sha256}}</code>.</p>
        <h2>Changes from the revision before</h2>
        \(diffBlock)
        <h2>The exact bytes</h2>
        <pre tabindex="0">{{bytes}}</pre>
        {{#canPublish}}<p><a href="/console/domains/{{host}}/revisions/{{revision.number}}/rollback">Roll back to this\
         revision</a></p>{{/canPublish}}
        {{/content}}{{/layout}}
        """

    static let rollback = """
        {{<layout}}{{$content}}
        <h2>What the rollback changes (current revision to {{number}})</h2>
        \(diffBlock)
        <form method="post" action="/console/domains/{{host}}/revisions/{{number}}/rollback" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="reason">Reason</label>
        <input id="reason" name="reason" required maxlength="1000">
        <button type="submit">Roll back</button>
        </form>
        {{/content}}{{/layout}}
        """

    static let apple = """
        {{<layout}}{{$content}}
        <dl class="facts">
        <dt>Apple's CDN</dt><dd><span class="state-{{cdn.state}}">{{cdn.state}}</span>: {{cdn.message}}</dd>
        {{#cdn.checkedAt}}<dt>Last checked</dt><dd>{{cdn.checkedAt}}</dd>{{/cdn.checkedAt}}
        {{#cdn.revision}}<dt>CDN serves revision</dt><dd>{{cdn.revision}}</dd>{{/cdn.revision}}
        </dl>
        <h2>History</h2>
        {{{timeline}}}
        {{#canFetch}}
        <form method="post" action="/console/domains/{{host}}/apple/probe" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Probe now</button></form>
        <form method="post" action="/console/domains/{{host}}/apple/cdn" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Check CDN now</button></form>
        {{/canFetch}}
        <h2>Google's view (Digital Asset Links API)</h2>
        {{#empty(google)}}<p>No Android app: this domain publishes no assetlinks.json statement.</p>{{/empty(google)}}
        <ul>{{#google}}<li><code>{{package}}</code>: <span class="state-{{state}}">{{state}}</span>: {{message}}\
        {{#checkedAt}} <span class="muted">(checked {{checkedAt}})</span>{{/checkedAt}}</li>{{/google}}</ul>
        {{^empty(googleHistory)}}
        <table><caption>Google's history</caption><thead><tr><th scope="col">When</th><th scope="col">Package</th>
        <th scope="col">State</th><th scope="col">assetlinks.json revision</th></tr></thead><tbody>
        {{#googleHistory}}<tr><td>{{at}}</td><td><code>{{package}}</code></td><td>{{state}}</td><td>{{revision}}</td>\
        </tr>{{/googleHistory}}
        </tbody></table>
        {{/empty(googleHistory)}}
        {{^empty(findings)}}
        <h2>Findings</h2>
        <ul>{{#findings}}<li><code>{{code}}</code> {{message}}</li>{{/findings}}</ul>
        {{/empty(findings)}}
        {{#fetched}}<p role="status">{{fetched}}</p>{{/fetched}}
        {{/content}}{{/layout}}
        """

    static let teams = """
        {{<layout}}{{$content}}
        <ul>{{#items}}<li><a href="/console/teams/{{name}}">{{name}}</a> {{displayName}}</li>{{/items}}</ul>
        {{/content}}{{/layout}}
        """

    static let team = """
        {{<layout}}{{$content}}
        <p>{{team.displayName}}{{^empty(team.appleTeamIDs)}} · Apple team IDs: {{#team.appleTeamIDs}}{{.}} \
        {{/team.appleTeamIDs}}{{/empty(team.appleTeamIDs)}}</p>
        <h2>Apps</h2>
        <table><thead><tr><th scope="col">App</th><th scope="col">Platform</th><th scope="col">Services</th>
        <th scope="col">Fingerprints</th></tr></thead><tbody>
        {{#apps}}<tr><td><code>{{appID}}</code></td><td>{{platform}}</td><td>{{#services}}{{.}} {{/services}}</td>
        <td>{{#fingerprints}}<code class="fp">{{.}}</code> {{/fingerprints}}</td></tr>{{/apps}}
        </tbody></table>
        <h2>Grants</h2>
        {{#empty(grants)}}<p>No grant: the team may place rules on no domain.</p>{{/empty(grants)}}
        {{^empty(grants)}}<table><thead><tr><th scope="col">Domain</th><th scope="col">Path prefixes</th>
        <th scope="col">Domain-wide services</th></tr></thead><tbody>
        {{#grants}}<tr><td><a href="/console/domains/{{host}}">{{host}}</a></td>
        <td>{{#pathPrefixes}}<code>{{.}}</code> {{/pathPrefixes}}</td>
        <td>{{#services}}{{.}} {{/services}}</td></tr>{{/grants}}
        </tbody></table>{{/empty(grants)}}
        <h2>Tokens</h2>
        <table><thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Last used</th>
        <th scope="col">State</th></tr></thead><tbody>
        {{#tokens}}<tr><td>{{name}}</td><td>{{#scopes}}{{.}} {{/scopes}}</td><td>{{lastUsedAt}}</td>
        <td>{{#revokedAt}}revoked {{revokedAt}}{{/revokedAt}}{{^revokedAt}}{{#expiresAt}}expires {{expiresAt}}\
        {{/expiresAt}}{{^expiresAt}}active{{/expiresAt}}{{/revokedAt}}</td></tr>{{/tokens}}
        </tbody></table>
        <p><a href="/console/audit?team={{team.name}}">The team's audit</a></p>
        {{/content}}{{/layout}}
        """

    static let audit = """
        {{<layout}}{{$content}}
        <form method="get" action="/console/audit" class="inline-form">
        <label for="f-domain">Domain</label> <input id="f-domain" name="domain" value="{{filter.domain}}" size="18">
        <label for="f-team">Team</label> <input id="f-team" name="team" value="{{filter.team}}" size="10">
        <label for="f-action">Action</label> <input id="f-action" name="action" value="{{filter.action}}" size="14">
        <label for="f-since">Since</label> <input id="f-since" name="since" type="date" value="{{filter.since}}">
        <label for="f-until">Until</label> <input id="f-until" name="until" type="date" value="{{filter.until}}">
        <button type="submit">Filter</button>
        </form>
        <table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th>
        <th scope="col">Domain</th><th scope="col">Team</th><th scope="col">What</th></tr></thead><tbody>
        {{#items}}<tr><td>{{at}}</td><td>{{actor.name}}</td><td><code>{{action}}</code></td><td>{{domain}}</td>
        <td>{{team}}</td><td>{{entityType}} {{entityID}}</td></tr>{{/items}}
        </tbody></table>
        {{#next}}<p><a href="{{next}}">Older</a></p>{{/next}}
        {{/content}}{{/layout}}
        """
}
