/// One route of the HTTP API: its name, method and path pattern (`:name` for each parameter).
/// Every route is spelled once, here: the server registers them from this table, the native
/// client calls `path(_:)`, and the web app reads the same table from `/app/routes.js`, which
/// the server makes from it (`APIRoute.javaScript`).
public struct APIRoute: Hashable, Sendable {
    public enum Method: String, Hashable, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
    }

    public let name: String
    public let method: Method
    /// The path without its leading "/", as the server's router takes it.
    public let pattern: String

    init(_ name: String, _ method: Method, _ pattern: String) {
        self.name = name
        self.method = method
        self.pattern = pattern
    }

    /// The path with `parameters` in place of the pattern's `:name`s, in order, each
    /// percent-encoded; with a leading "/".
    public func path(_ parameters: String...) -> String { path(parameters) }

    public func path(_ parameters: [String]) -> String {
        var values = parameters.makeIterator()
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.hasPrefix(":") else { return String(segment) }
            guard let value = values.next() else { preconditionFailure("route \(name) needs a value for \(segment)") }
            return Self.encoded(value)
        }
        return "/" + segments.joined(separator: "/")
    }

    /// A path segment's value percent-encoded (everything but unreserved characters).
    static func encoded(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                out += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }
}

extension APIRoute {
    // Accounts and devices.
    public static let createAccount = APIRoute("createAccount", .post, "v1/accounts")
    public static let me = APIRoute("me", .get, "v1/me")
    public static let rename = APIRoute("rename", .put, "v1/me")
    public static let createLinkCode = APIRoute("createLinkCode", .post, "v1/devices/link-codes")
    public static let linkDevice = APIRoute("linkDevice", .post, "v1/devices")
    public static let devices = APIRoute("devices", .get, "v1/devices")
    public static let revokeDevice = APIRoute("revokeDevice", .delete, "v1/devices/:device")
    public static let socketTicket = APIRoute("socketTicket", .post, "v1/socket-tickets")
    public static let feed = APIRoute("feed", .get, "v1/feed")
    public static let stats = APIRoute("stats", .get, "v1/stats")
    // Games.
    public static let createGame = APIRoute("createGame", .post, "v1/games")
    public static let games = APIRoute("games", .get, "v1/games")
    public static let pushMoves = APIRoute("pushMoves", .post, "v1/games/:game/moves")
    public static let changes = APIRoute("changes", .get, "v1/games/:game/changes")
    public static let snapshot = APIRoute("snapshot", .get, "v1/games/:game/snapshot")
    /// The game as a puzzle file: `?format=puz|ipuz|jpz|xd`, `&fill=1` with the grid's letters.
    public static let exportGame = APIRoute("exportGame", .get, "v1/games/:game/export")
    /// The account's latest games as puzzle files in one zip (`?format=`, `&fill=1`).
    public static let exportAll = APIRoute("exportAll", .get, "v1/export")
    public static let resign = APIRoute("resign", .post, "v1/games/:game/resign")
    public static let seal = APIRoute("seal", .post, "v1/games/:game/seals")
    /// The player paused: their share of the shared clock stops now (the server's time).
    public static let pause = APIRoute("pause", .post, "v1/games/:game/pauses")
    public static let presence = APIRoute("presence", .post, "v1/games/:game/presence")
    public static let postMessage = APIRoute("postMessage", .post, "v1/games/:game/messages")
    public static let postReaction = APIRoute("postReaction", .post, "v1/games/:game/reactions")
    public static let postFlag = APIRoute("postFlag", .post, "v1/games/:game/flags")
    public static let nudge = APIRoute("nudge", .post, "v1/games/:game/nudges")
    // Sharing.
    public static let invite = APIRoute("invite", .post, "v1/games/:game/invitations")
    public static let invitations = APIRoute("invitations", .get, "v1/games/:game/invitations")
    public static let revokeLink = APIRoute("revokeLink", .delete, "v1/games/:game/invitations/:link")
    public static let previewInvitation = APIRoute("previewInvitation", .get, "v1/invitations/:token")
    public static let revokeInvitation = APIRoute("revokeInvitation", .delete, "v1/invitations/:token")
    public static let acceptInvitation = APIRoute("acceptInvitation", .post, "v1/invitations/:token/accept")
    public static let leave = APIRoute("leave", .post, "v1/games/:game/leave")
    public static let removePlayer = APIRoute("removePlayer", .delete, "v1/games/:game/participants/:author")
    // Friends, decisions, preferences, settings.
    public static let friends = APIRoute("friends", .get, "v1/friends")
    public static let decide = APIRoute("decide", .post, "v1/decisions")
    public static let preferences = APIRoute("preferences", .put, "v1/preferences")
    public static let settings = APIRoute("settings", .get, "v1/settings")
    public static let putSetting = APIRoute("putSetting", .put, "v1/settings")
    // Web Push.
    public static let pushKey = APIRoute("pushKey", .get, "v1/push/key")
    public static let pushSubscribe = APIRoute("pushSubscribe", .post, "v1/push/subscriptions")
    public static let pushUnsubscribe = APIRoute("pushUnsubscribe", .delete, "v1/push/subscriptions")
    // The bundled puzzles and the socket.
    public static let puzzles = APIRoute("puzzles", .get, "v1/puzzles")
    public static let puzzle = APIRoute("puzzle", .get, "v1/puzzles/:name")
    public static let socket = APIRoute("socket", .get, "v1/socket")

    /// Every route of the API.
    public static let all: [APIRoute] = [
        createAccount, me, rename, createLinkCode, linkDevice, devices, revokeDevice, socketTicket, feed, stats, createGame, games,
        pushMoves, changes, snapshot, exportGame, exportAll, resign, seal, pause, presence, postMessage, postReaction, postFlag, nudge, invite,
        invitations,
        revokeLink,
        previewInvitation, revokeInvitation, acceptInvitation, leave, removePlayer, friends, decide, preferences, settings, putSetting,
        pushKey, pushSubscribe, pushUnsubscribe, puzzles, puzzle, socket,
    ]

    /// The table as a JavaScript module for the web app: `route(name, ...parameters)` gives the
    /// method and path of a route, as `path(_:)` does.
    public static var javaScript: String {
        let entries = all.map { #"  \#($0.name): ["\#($0.method.rawValue)", "/\#($0.pattern)"],"# }.joined(separator: "\n")
        return """
            // Made by the server from APIRoute (CrossmateProtocol): every route of the API, spelled once.
            const routes = {
            \(entries)
            };

            /** [method, path] of route `name`, its `:parameters` filled in order, each encoded. */
            export function route(name, ...parameters) {
              const [method, pattern] = routes[name];
              let index = 0;
              const path = pattern.replace(/:[a-z]+/g, () => encodeURIComponent(parameters[index++]));
              return [method, path];
            }

            """
    }
}
