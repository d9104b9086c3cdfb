package certificate

// Lang selects the language of the certificate's fixed labels.
type Lang string

// Supported label languages. The empty Lang means LangKO, the service's home language.
const (
	LangKO Lang = "ko"
	LangEN Lang = "en"
)

// labels are the fixed texts of one language.
type labels struct {
	title, subtitle              string
	certifies                    string
	issuer, issuedOn, expiresOn  string
	noExpiry, serial, scanVerify string
	criteria                     string
}

var labelSets = map[Lang]labels{
	LangKO: {
		title:      "디지털 배지 인증서",
		subtitle:   "CERTIFICATE OF ACHIEVEMENT",
		certifies:  "위 사람은 다음 디지털 배지를 취득하였음을 인증합니다.",
		issuer:     "발급 기관",
		issuedOn:   "발급일",
		expiresOn:  "만료일",
		noExpiry:   "만료 없음",
		serial:     "일련번호",
		scanVerify: "QR 코드를 스캔하여 진위를 확인하세요",
		criteria:   "취득 기준",
	},
	LangEN: {
		title:      "Certificate of Achievement",
		subtitle:   "DIGITAL BADGE",
		certifies:  "This is to certify that the person named above has earned the badge",
		issuer:     "Issued by",
		issuedOn:   "Issued on",
		expiresOn:  "Expires on",
		noExpiry:   "Does not expire",
		serial:     "Serial number",
		scanVerify: "Scan the QR code to verify",
		criteria:   "Criteria",
	},
}
